import type { PaymentProcessor } from "../adapters/payment-processors/payment-processor.ts";
import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import type { OrganizationScope } from "../http/auth.ts";
import { ResourceNotFound, valueError } from "../http/errors.ts";
import { grantBenefits } from "../modules/benefits/benefits.steps.ts";
import { findLiveCustomer } from "../modules/customers/customers.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import { OrderNotDraft, PaymentActionRequired } from "../modules/orders/orders.errors.ts";
import type { Order, OrderFinalize } from "../modules/orders/orders.schemas.ts";
import { assignInvoiceNumber, findOrderForUpdate, markOrderPaid, readOrder, updateOrder } from "../modules/orders/orders.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import { findOrganization } from "../modules/organizations/organizations.steps.ts";
import { findPaymentMethod, nextAttemptKey, recordPayment } from "../modules/payments/payments.steps.ts";
import type { PaymentMethodRow } from "../modules/payments/payments.table.ts";
import { findProductWithRelations } from "../modules/products/products.steps.ts";
import { PaymentFailed } from "../modules/subscriptions/subscriptions.errors.ts";
import { checkOffSessionCharges, checkReadyForPayments, ORDER_MINIMUM_AMOUNT } from "./draft-order.ts";
import { writeOrderPaidEmail } from "./order-paid-email.ts";

/** Stripe's decline code when the issuer asks for 3-D Secure, which no one can complete off-session. */
const AUTHENTICATION_REQUIRED = "authentication_required";

/** The method to charge: the one named (the customer's own), else the customer's default. */
async function methodToCharge(trx: Executor, customer: CustomerRow, requested: string | null | undefined): Promise<PaymentMethodRow> {
  if (requested !== undefined && requested !== null) {
    const method = await findPaymentMethod(trx, requested, customer.id);
    if (!method) throw valueError(["body", "payment_method_id"], "Payment method does not exist.", requested);
    return method;
  }
  const method = customer.default_payment_method_id ? await findPaymentMethod(trx, customer.default_payment_method_id, customer.id) : null;
  if (!method) throw new PaymentFailed("missing_payment_method");
  return method;
}

/**
 * Charges the claimed order off-session and records the payment; throws the refusal (402), which
 * rolls the claim back. Null reference: under the currency minimum, nothing is charged.
 */
async function charge(trx: Executor, ctx: FinalizeContext, order: OrderRow, customer: CustomerRow, requested: string | null | undefined) {
  const method = await methodToCharge(trx, customer, requested);
  if (order.total_amount < ORDER_MINIMUM_AMOUNT) return null;
  const outcome = await ctx.payments.chargeOffSession({
    attemptId: await nextAttemptKey(trx, order.id),
    methodReference: method.processor_reference,
    customerReference: method.processor_customer_reference,
    organizationId: order.organization_id,
    orderId: order.id,
    trigger: "purchase",
    amount: order.total_amount,
    currency: order.currency,
  });
  if (outcome.status !== "succeeded") {
    if (outcome.declineCode === AUTHENTICATION_REQUIRED) throw new PaymentActionRequired();
    throw new PaymentFailed(outcome.declineCode ?? outcome.status);
  }
  await recordPayment(trx, {
    organizationId: order.organization_id,
    customerId: order.customer_id,
    orderId: order.id,
    methodId: method.id,
    trigger: "purchase",
    amount: order.total_amount,
    currency: order.currency,
    reference: outcome.reference,
    now: ctx.deps.now(),
  });
  return outcome.reference;
}

export interface FinalizeContext {
  deps: Deps;
  payments: PaymentProcessor;
}

/**
 * `POST /v1/orders/{id}/finalize`: the draft is claimed under its row lock (draft → pending), so a
 * concurrent finalize waits and then finds it no longer a draft (412): one charge at most. The
 * charge is made before the commit; any refusal rolls everything back, the order a draft again.
 * Paid, it gets its invoice and receipt numbers, `order.updated` and `order.paid`, its product's
 * benefits and the order email, as a checkout's order does.
 */
export async function finalizeOrder(ctx: FinalizeContext, id: string, body: OrderFinalize, allowed: OrganizationScope): Promise<Order> {
  const { deps } = ctx;
  return deps.db.transaction().execute(async (trx) => {
    const draft = await findOrderForUpdate(trx, id, { allowed });
    if (!draft) throw new ResourceNotFound();
    if (draft.status !== "draft") throw new OrderNotDraft(draft.id);
    const organization = await findOrganization(trx, draft.organization_id, null);
    const customer = await findLiveCustomer(trx, draft.organization_id, { id: draft.customer_id });
    if (!organization || !customer) throw new ResourceNotFound();
    checkOffSessionCharges(organization);
    checkReadyForPayments(organization);
    const now = deps.now();
    const claimed = await updateOrder(trx, draft.id, { status: "pending", modified_at: now });
    const reference = await charge(trx, ctx, claimed, customer, body.payment_method_id);
    const numbered = await assignInvoiceNumber(trx, claimed, organization, customer);
    const { row: paid, published } = await markOrderPaid(trx, numbered, { customer, reference }, now);
    const product = paid.product_id ? await findProductWithRelations(trx, paid.product_id, [organization.id]) : undefined;
    const benefits = product?.benefits ?? [];
    await grantBenefits(trx, { customerId: customer.id, orderId: paid.id, subscriptionId: null, benefits, now });
    await writeOrderPaidEmail(trx, deps, {
      reason: "purchase",
      organization,
      customer,
      order: paid,
      items: published.items,
      benefits,
      locale: customer.locale,
      now,
    });
    return readOrder(trx, paid);
  });
}
