import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import { recordEmail, renderOrderEmail, type CustomerEmailSetting, type OrderEmailReason } from "../modules/emails/emails.steps.ts";
import { orderDocumentLinks, renewedBefore } from "../modules/orders/orders.steps.ts";
import type { OrderItemRow, OrderRow } from "../modules/orders/orders.table.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import { findOrganization } from "../modules/organizations/organizations.steps.ts";
import { frozenPrices } from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { brandOf, customerPortalUrl } from "./customer-email-parties.ts";
import { grantedBenefits } from "./purchase-summary.ts";

// The email of an order that became paid, whatever paid it: its template follows why it was billed.

/** Each reason's template, which is also its switch (a usage invoice goes out as a renewal's, as the hosted service sends it). */
const TEMPLATES: Record<OrderEmailReason, CustomerEmailSetting> = {
  purchase: "order_confirmation",
  subscription_create: "subscription_confirmation",
  subscription_cycle: "subscription_cycled",
  subscription_cycle_after_trial: "subscription_cycled_after_trial",
  subscription_meter_cycle: "subscription_cycled",
};

/**
 * The customer's email for a paid order, written to the outbox in the transaction that paid it
 * (after its grants, which a first order lists): one per order, whatever replays the payment.
 */
export async function writeOrderPaidEmail(
  db: Executor,
  deps: Deps,
  paid: {
    reason: OrderEmailReason;
    organization: OrganizationRow;
    customer: CustomerRow;
    order: OrderRow;
    items: readonly Pick<OrderItemRow, "label" | "amount">[];
    /** The product's benefits a first order lists (those it granted); none for a renewal. */
    benefits: readonly { id: string; description: string }[];
    /** The checkout's language, else the customer's (as the order's documents choose it). */
    locale: string | null;
    now: Date;
  },
): Promise<void> {
  const { organization, customer, order } = paid;
  // A checkout without an email (an API-made customer may lack one) has nobody to write to.
  if (!customer.email) return;
  const template = TEMPLATES[paid.reason];
  const rendered = renderOrderEmail({
    reason: paid.reason,
    organization: brandOf(organization),
    recipient: customer.email,
    locale: paid.locale,
    description: order.description,
    receiptNumber: order.receipt_number,
    paidAt: paid.now,
    items: paid.items.map((item) => ({ label: item.label, amount: item.amount })),
    amounts: {
      subtotal: order.subtotal_amount,
      discount: order.discount_amount,
      tax: order.tax_amount,
      total: order.total_amount,
      currency: order.currency,
    },
    benefits: await grantedBenefits(db, deps, order, paid.benefits),
    portalUrl: customerPortalUrl(deps, organization),
    documents: orderDocumentLinks(deps, order, paid.now),
  });
  await recordEmail(db, deps.config.email, {
    organization,
    audience: { to: "customer", kind: "receipt", setting: template },
    dedupeKey: `${template}:${order.id}`,
    template,
    locale: paid.locale,
    recipient: customer.email,
    rendered,
    now: paid.now,
  });
}

/**
 * Why a renewal's order was billed, as its email tells it: the first renewal of a subscription that
 * began with a trial is its conversion (not the usage order closing a trial that ends unconverted).
 * Null for an order whose email this is not (a change's `subscription_update`).
 */
async function renewalReason(db: Executor, order: OrderRow, subscription: SubscriptionRow): Promise<OrderEmailReason | null> {
  if (order.billing_reason === "subscription_meter_cycle") return "subscription_meter_cycle";
  if (order.billing_reason !== "subscription_cycle") return null;
  const converted =
    subscription.trial_end !== null &&
    order.created_at >= subscription.trial_end &&
    (subscription.ended_at === null || subscription.ended_at > order.created_at) &&
    !(await renewedBefore(db, order));
  return converted ? "subscription_cycle_after_trial" : "subscription_cycle";
}

/**
 * A subscription's renewal order paid after its checkout (at once when nothing was due, else by a
 * charge, a dunning retry or the customer's own payment): its receipt, in the paying transaction.
 * Nothing for a subscription whose prices are all free (nothing was ever charged), as the hosted
 * service skips it, nor for a deleted customer or one without an address. The caller passes what it
 * holds already (the order's subscription and customer, its items as just published), so the
 * receipt reads only the organization and the prices.
 */
export async function writeRenewalPaidEmail(
  db: Executor,
  deps: Deps,
  paid: {
    order: OrderRow;
    items: readonly Pick<OrderItemRow, "label" | "amount">[];
    subscription: SubscriptionRow;
    customer: CustomerRow;
  },
  now: Date,
): Promise<void> {
  const { order, subscription, customer } = paid;
  const reason = await renewalReason(db, order, subscription);
  if (!reason || customer.deleted_at !== null || !customer.email) return;
  if ((await frozenPrices(db, subscription.id)).every((price) => price.amount_type === "free")) return;
  const organization = await findOrganization(db, order.organization_id, null);
  if (!organization) throw new Error(`customer ${customer.id} without its organization`);
  await writeOrderPaidEmail(db, deps, {
    reason,
    organization,
    customer,
    order,
    items: paid.items,
    benefits: [],
    locale: customer.locale,
    now,
  });
}
