import { randomUUID } from "node:crypto";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { paginate, type Page } from "../../schema/pagination.ts";
import { findCustomerForUpdate } from "../customers/customers.steps.ts";
import { keepSavedMethod, setUpPaymentMethod } from "../payments/payments.steps.ts";
import type { PaymentProcessor } from "../../adapters/payment-processors/payment-processor.ts";
import { toCustomerPaymentMethod } from "../payments/payment-methods.mapper.ts";
import type {
  CustomerPaymentMethod,
  CustomerPaymentMethodConfirm,
  CustomerPaymentMethodCreate,
  CustomerPaymentMethodCreateResponse,
  PaymentMethodListQuery,
} from "../payments/payment-methods.schemas.ts";
import { countPaymentMethods, findPaymentMethod, listPaymentMethods } from "../payments/payments.steps.ts";
import type { PaymentMethodRow } from "../payments/payments.table.ts";
import {
  changeDefaultMethod,
  dunningOrdersOfCustomer,
  moveSubscriptionsToMethod,
  retirePaymentMethod,
} from "../subscriptions/subscriptions.steps.ts";
import type { PortalOrderPayments } from "./portal-order-payments.service.ts";
import { CustomerNotReady, PaymentMethodInUseByActiveSubscription, PaymentMethodSetupFailed } from "./portal-payments.errors.ts";
import { keepProcessorCustomer, processorCustomerOfSession, type portalCustomerOf } from "./portal-session.ts";

type PortalCustomer = ReturnType<typeof portalCustomerOf>;

/** The session's customer, locked: changes to its methods and default are made one at a time. */
async function lockCustomer(trx: Executor, session: PortalCustomer) {
  const customer = await findCustomerForUpdate(trx, session.customerId, [session.organizationId]);
  if (!customer) throw new ResourceNotFound();
  return customer;
}

/** What the operations work with: the service's dependencies, the processor, the dunning retries. */
interface PortalPaymentMethodContext {
  deps: Deps;
  processor: PaymentProcessor;
  orderPayments: PortalOrderPayments;
}

/**
 * Makes `method` the customer's default and moves the subscriptions dunning is chasing onto it,
 * then retries their orders with it at once (the hosted service's `set_default`; not counted toward dunning).
 */
async function setDefault(context: PortalPaymentMethodContext, session: PortalCustomer, method: PaymentMethodRow): Promise<void> {
  const { deps } = context;
  await deps.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, session);
    const now = deps.now();
    await changeDefaultMethod(trx, customer, method.id, now);
    const chased = await dunningOrdersOfCustomer(trx, customer.id);
    const subscriptionIds = [...new Set(chased.map((order) => order.subscription_id).filter((id): id is string => id !== null))];
    await moveSubscriptionsToMethod(trx, { ids: subscriptionIds }, method.id, now);
  });
  await context.orderPayments.retryDunningOrders(session.customerId, method);
}

function listMethods(db: Executor, query: PaymentMethodListQuery, session: PortalCustomer): Promise<Page<CustomerPaymentMethod>> {
  return paginate(
    query,
    () => countPaymentMethods(db, session.customerId),
    async (offset, limit) => (await listPaymentMethods(db, session.customerId, { offset, limit })).map(toCustomerPaymentMethod),
  );
}

/**
 * Sets the card up with the processor (no charge); a refusal is the hosted service's 400. A card
 * asking for 3-D Secure answers `requires_action` with the setup's client secret: nothing is saved
 * until the page has finished the step and confirmed the setup (`confirmSetup`).
 */
async function addMethod(
  context: PortalPaymentMethodContext,
  input: CustomerPaymentMethodCreate,
  session: PortalCustomer,
): Promise<CustomerPaymentMethodCreateResponse> {
  const setup = await setUpPaymentMethod(context.deps.db, context.processor, {
    organizationId: session.organizationId,
    customerId: session.customerId,
    customer: await processorCustomerOfSession(context.deps.db, session),
    confirmationToken: input.confirmation_token_id,
    // Each request is a new setup, as a confirmation token is used once.
    attemptId: randomUUID(),
    now: context.deps.now(),
  });
  if ("refused" in setup) throw new PaymentMethodSetupFailed(setup.refused);
  if ("pending" in setup) {
    // The setup's processor customer is the one its confirm will be checked against.
    await keepProcessorCustomer(context.deps.db, session, setup.pending.customerReference);
    return { status: "requires_action", client_secret: setup.pending.clientSecret };
  }
  await keepProcessorCustomer(context.deps.db, session, setup.method.processor_customer_reference);
  return saved(context, session, setup.method, input.set_default);
}

async function saved(
  context: PortalPaymentMethodContext,
  session: PortalCustomer,
  method: PaymentMethodRow,
  setDefaultMethod: boolean,
): Promise<CustomerPaymentMethodCreateResponse> {
  if (setDefaultMethod) await setDefault(context, session, method);
  return { status: "succeeded", payment_method: toCustomerPaymentMethod(method) };
}

const invalidSetupIntent = (input: CustomerPaymentMethodConfirm) =>
  new RequestValidationError([fieldIssue(["body", "setup_intent_id"], "Invalid setup_intent_id.", input.setup_intent_id, "invalid")]);

/**
 * Completes a setup that waited for the customer's 3-D Secure step: the setup is read again at the
 * processor and must be one this server made for the session's customer (another customer's or
 * organization's reads as unknown: 422). Still waiting answers `requires_action` again; refused,
 * the hosted service's 400; succeeded, the card is saved, once: a second confirm answers the card
 * saved by the first (under the customer's row lock, so two at once save one). The sandbox's setups
 * never wait, so every id is unknown to it (docs/decisions.md).
 */
async function confirmSetup(
  context: PortalPaymentMethodContext,
  input: CustomerPaymentMethodConfirm,
  session: PortalCustomer,
): Promise<CustomerPaymentMethodCreateResponse> {
  const { deps, processor } = context;
  const customer = await processorCustomerOfSession(deps.db, session);
  const lookup = await processor.lookupSetup(input.setup_intent_id, customer.reference);
  if (lookup.status === "no_customer") throw new CustomerNotReady();
  if (lookup.status === "unknown" || lookup.customerId !== session.customerId || lookup.organizationId !== session.organizationId)
    throw invalidSetupIntent(input);
  const { outcome } = lookup;
  if (outcome.status === "pending") return { status: "requires_action", client_secret: outcome.clientSecret };
  if (outcome.status !== "succeeded") throw new PaymentMethodSetupFailed(outcome.message);
  const method = await deps.db.transaction().execute(async (trx) => {
    await lockCustomer(trx, session);
    return keepSavedMethod(trx, {
      organizationId: session.organizationId,
      customerId: session.customerId,
      method: outcome.method,
      now: deps.now(),
    });
  });
  // The card was saved by an earlier confirm, then deleted (and detached): this setup is spent.
  if (!method) throw invalidSetupIntent(input);
  return saved(context, session, method, input.set_default);
}

/** Deletes a method of the session's customer; one a subscription still needs, with no other to take over, stays (400). */
async function removeMethod(context: PortalPaymentMethodContext, id: string, session: PortalCustomer): Promise<void> {
  const { deps, processor } = context;
  await deps.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, session);
    const method = await findPaymentMethod(trx, id, customer.id);
    if (!method) throw new ResourceNotFound();
    if (!(await retirePaymentMethod(trx, customer, method, deps.now(), "refuse"))) throw new PaymentMethodInUseByActiveSubscription();
    // Detached at the processor once the checks passed, before the commit: unreachable, nothing is deleted.
    await processor.detachMethod(method.processor_reference);
  });
}

/** The portal's saved payment methods: list, add (set up without charging), delete, and the default. */
export function createPortalPaymentMethodService(deps: Deps, processor: PaymentProcessor, orderPayments: PortalOrderPayments) {
  const context: PortalPaymentMethodContext = { deps, processor, orderPayments };
  return {
    list: (query: PaymentMethodListQuery, session: PortalCustomer) => listMethods(deps.db, query, session),
    add: (input: CustomerPaymentMethodCreate, session: PortalCustomer) => addMethod(context, input, session),
    confirm: (input: CustomerPaymentMethodConfirm, session: PortalCustomer) => confirmSetup(context, input, session),
    remove: (id: string, session: PortalCustomer) => removeMethod(context, id, session),
  };
}
export type PortalPaymentMethodService = ReturnType<typeof createPortalPaymentMethodService>;
