import type { Deps } from "../../context.ts";
import {
  findSubscriptionEmbedded,
  frozenPrices,
  type SubscriptionEmbeddedRow,
  type SubscriptionFilter,
  type SubscriptionVisibility,
} from "../subscriptions/subscriptions.steps.ts";
import { AppError, Conflict, ResourceNotFound } from "../../http/errors.ts";
import { asList, type Page, type PageRequest } from "../../schema/pagination.ts";
import { toSubscriptionFields } from "../orders/orders.mapper.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { toCustomerOrganization, toOrganization } from "../organizations/organizations.mapper.ts";
import { hasPaymentMethod } from "../payments/payments.steps.ts";
import { toCheckoutProduct, toProductPrice } from "../products/products.mapper.ts";
import type { SubscriptionUpdate } from "../subscriptions/subscription-inputs.schemas.ts";
import type { SubscriptionUpdates } from "../../flows/change-subscription.ts";
import { subscriptionMeters } from "../subscriptions/subscriptions.steps.ts";
import { pageSubscriptions } from "../subscriptions/subscriptions.steps.ts";
import { claimedSubscriptionIdsOfMember } from "../customer-seats/customer-seats.steps.ts";
import type { portalCustomerOf } from "./portal-session.ts";
import type { CustomerSubscription, CustomerSubscriptionListQuery, CustomerSubscriptionUpdate } from "./portal-subscriptions.schemas.ts";

type PortalCustomer = ReturnType<typeof portalCustomerOf>;

// The hosted service's errors for what the organization's portal settings forbid, word for word.
class PortalSettingForbids extends AppError {
  constructor(error: string, detail: string) {
    super(403, error, detail);
  }
}

/** A session sees its own customer's subscriptions in its own organization, and nothing else. */
const visibleTo = (session: PortalCustomer): SubscriptionVisibility => ({
  allowed: [session.organizationId],
  customerId: session.customerId,
});

/**
 * The customer's view: each subscription's product with its public benefits and seller, its meters
 * for the current period (the meter named, not described), no metadata, customer or discount.
 */
async function present(deps: Deps, rows: readonly SubscriptionEmbeddedRow[]): Promise<CustomerSubscription[]> {
  const { db } = deps;
  const sellers = new Map<string, ReturnType<typeof toCustomerOrganization>>();
  for (const id of new Set(rows.map((row) => row.organization_id))) {
    const organization = await findOrganization(db, id, null);
    if (organization) sellers.set(id, toCustomerOrganization(organization));
  }
  const now = deps.now();
  const presented: CustomerSubscription[] = [];
  for (const { customer: _customer, product, discount: _discount, prices, ...row } of rows) {
    if (!product) throw new Error(`subscription ${row.id} without its product`);
    // Each in a transaction of its own, as the organization's reads (the usage reads lock the meter).
    const meters = await db.transaction().execute((trx) => subscriptionMeters(trx, row, now));
    presented.push({
      ...toSubscriptionFields(row),
      product: { ...toCheckoutProduct(product), organization: sellers.get(row.organization_id)! },
      prices: prices.map(toProductPrice),
      meters: meters.map(({ meter: { id, name, created_at, modified_at }, ...meter }) => ({
        ...meter,
        meter: { id, name, created_at, modified_at },
      })),
      pending_update: row.pending_update ? { ...row.pending_update, modified_at: null } : null,
    });
  }
  return presented;
}

/** What the portal's subscriptions run on: the dependencies and the change flow. */
interface PortalSubscriptionsContext {
  deps: Deps;
  updates: SubscriptionUpdates;
}

async function readPortalSubscription(deps: Deps, id: string, session: PortalCustomer): Promise<CustomerSubscription> {
  const row = await findSubscriptionEmbedded(deps.db, id, visibleTo(session));
  if (!row) throw new ResourceNotFound();
  return (await present(deps, [row]))[0]!;
}

/** A subscription with a price to pay needs a saved method before it may go on (the hosted service's 409). */
async function requirePaymentMethod(deps: Deps, id: string, session: PortalCustomer, doing: "uncancelling" | "resuming"): Promise<void> {
  // Metered prices (no frozen amount) bill too.
  const paid = (await frozenPrices(deps.db, id)).some((price) => price.amount === null || price.amount > 0);
  if (!paid) return;
  if (!(await hasPaymentMethod(deps.db, session.customerId)))
    throw new Conflict("PaymentMethodRequired", `Add a payment method before ${doing} this subscription.`);
}

/** The organization's portal settings decide which changes a customer may make. */
async function merchantChange(
  deps: Deps,
  input: CustomerSubscriptionUpdate,
  session: PortalCustomer,
  id: string,
): Promise<SubscriptionUpdate> {
  const organization = await findOrganization(deps.db, session.organizationId, null);
  if (!organization) throw new ResourceNotFound();
  const settings = toOrganization(organization).customer_portal_settings.subscription;
  if ("product_id" in input) {
    if (!settings.update_plan)
      throw new PortalSettingForbids("UpdateSubscriptionPlanNotAllowed", "Updating subscription plan is not allowed.");
    return { product_id: input.product_id };
  }
  if ("seats" in input) {
    if (!settings.update_seats)
      throw new PortalSettingForbids("UpdateSubscriptionSeatsNotAllowed", "Updating subscription seats is not allowed.");
    return { seats: input.seats };
  }
  if ("pause_at_period_end" in input || "resume" in input) {
    if (!settings.pause) throw new PortalSettingForbids("PauseResumeNotAllowed", "Pausing and resuming subscriptions is not allowed.");
    if ("resume" in input) {
      await requirePaymentMethod(deps, id, session, "resuming");
      return { resume: true };
    }
    return { pause_at_period_end: input.pause_at_period_end, resumes_at: input.resumes_at ?? null };
  }
  if ("pending_update" in input) return { pending_update: null };
  // The cancel member: its fields are all optional, so `{}` lands here and changes nothing.
  if (input.cancel_at_period_end === undefined || input.cancel_at_period_end === null) return {};
  if (!input.cancel_at_period_end) await requirePaymentMethod(deps, id, session, "uncancelling");
  return {
    cancel_at_period_end: input.cancel_at_period_end,
    customer_cancellation_reason: input.cancellation_reason ?? null,
    customer_cancellation_comment: input.cancellation_comment ?? null,
  };
}

async function listPortalSubscriptions(
  deps: Deps,
  query: CustomerSubscriptionListQuery,
  session: PortalCustomer,
): Promise<Page<CustomerSubscription>> {
  const filter: SubscriptionFilter = {
    ...visibleTo(session),
    productIds: asList(query.product_id),
    active: query.active,
    query: query.query,
  };
  return pageSubscriptions(deps.db, filter, query, (_trx, rows) => present(deps, rows));
}

/** The subscriptions in which the session's member holds a claimed seat (a customer session holds none). */
async function listSeatSubscriptions(
  deps: Deps,
  query: PageRequest,
  session: PortalCustomer,
  memberId: string | null,
): Promise<Page<CustomerSubscription>> {
  const ids = memberId ? await claimedSubscriptionIdsOfMember(deps.db, memberId) : [];
  return pageSubscriptions(deps.db, { ...visibleTo(session), ids }, query, (_trx, rows) => present(deps, rows));
}

async function updatePortalSubscription(
  ctx: PortalSubscriptionsContext,
  id: string,
  input: CustomerSubscriptionUpdate,
  session: PortalCustomer,
): Promise<CustomerSubscription> {
  await readPortalSubscription(ctx.deps, id, session);
  await ctx.updates.updateRow(id, await merchantChange(ctx.deps, input, session, id), visibleTo(session));
  return readPortalSubscription(ctx.deps, id, session);
}

/** The portal's DELETE cancels at the period end (the merchant's revokes now). */
async function cancelPortalSubscription(
  ctx: PortalSubscriptionsContext,
  id: string,
  session: PortalCustomer,
): Promise<CustomerSubscription> {
  await ctx.updates.updateRow(id, { cancel_at_period_end: true }, visibleTo(session));
  return readPortalSubscription(ctx.deps, id, session);
}

/** The portal's subscription routes: reads, and the changes the hosted service lets a customer make. */
export function createPortalSubscriptionService(deps: Deps, updates: SubscriptionUpdates) {
  const ctx: PortalSubscriptionsContext = { deps, updates };
  return {
    list: (query: CustomerSubscriptionListQuery, session: PortalCustomer) => listPortalSubscriptions(deps, query, session),
    listSeatSubscriptions: (query: PageRequest, session: PortalCustomer, memberId: string | null) =>
      listSeatSubscriptions(deps, query, session, memberId),
    get: (id: string, session: PortalCustomer) => readPortalSubscription(deps, id, session),
    update: (id: string, input: CustomerSubscriptionUpdate, session: PortalCustomer) => updatePortalSubscription(ctx, id, input, session),
    cancel: (id: string, session: PortalCustomer) => cancelPortalSubscription(ctx, id, session),
  };
}
export type PortalSubscriptionService = ReturnType<typeof createPortalSubscriptionService>;
