import type { Executor } from "../db/database.ts";
import type { TaxEngine } from "../adapters/tax-engine/tax.engine.ts";
import type { JobSpec } from "../jobs/queue.ts";
import { recordWebhookEvents, type WebhookEvent } from "../jobs/webhook-outbox.ts";
import { cycleSubscriptionBenefits } from "../modules/benefits/benefits.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import { findCustomerEvenDeleted } from "../modules/customers/customers.steps.ts";
import { discountAmount, findDiscountById } from "../modules/discounts/discounts.steps.ts";
import { writeAndReadOrder } from "../modules/orders/orders.steps.ts";
import type { Order } from "../modules/orders/orders.schemas.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import { findOrganization } from "../modules/organizations/organizations.steps.ts";
import { findProductBilling } from "../modules/products/products.steps.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import {
  billableEntries,
  discountExpired,
  markEntriesBilled,
  unbilledEntries,
  type PriceLine,
} from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { collectRecoveryJob } from "./subscription-charge-settlement.ts";
import type { SubscriptionFlowContext } from "./subscription-flow-context.ts";
import { writeRenewalPaidEmail } from "./order-paid-email.ts";

// A subscription's orders: a period billed in advance, the closing period's usage in arrears, and
// the waiting credits and debits of its changes.

export const linesTotal = (lines: readonly { amount: number }[]) => lines.reduce((sum, line) => sum + line.amount, 0);

/** What one subscription order bills before its changes' waiting entries are added. */
export interface SubscriptionBill {
  billingReason: "subscription_cycle" | "subscription_update";
  product: { name: string; is_tax_applicable: boolean };
  lines: PriceLine[];
  discount: number;
  discountId: string | null;
  now: Date;
}

/**
 * The subscription's discount if it still applies to a period starting at `start` (the hosted service
 * checks expiry against the new period's start), with the start of its first billed period.
 */
export async function discountFor(trx: Executor, row: SubscriptionRow, start: Date) {
  if (!row.discount_id) return null;
  const discount = await findDiscountById(trx, row.discount_id);
  const appliedAt = row.discount_applied_at ?? start;
  return discount && !discountExpired(discount, appliedAt, start) ? { discount, appliedAt } : null;
}

/**
 * What a period starting at `start` bills for the subscription's static `lines`: their total, the
 * discount still running then and its amount (a renewal's, and the reminder announcing it).
 */
export async function periodCharge(trx: Executor, row: SubscriptionRow, lines: readonly PriceLine[], start: Date) {
  const kept = await discountFor(trx, row, start);
  const subtotal = linesTotal(lines);
  return { kept, subtotal, discounted: kept ? discountAmount(kept.discount, subtotal, row.currency) : 0 };
}

/** The order's tax on `taxable`, at the customer's billing address and the organization's registrations. */
function taxOf(
  taxEngine: TaxEngine,
  parties: { row: SubscriptionRow; organization: OrganizationRow; customer: CustomerRow },
  input: Pick<SubscriptionBill, "product" | "now">,
  taxable: number,
) {
  const { row, organization, customer } = parties;
  const address = customer.billing_address;
  if (!input.product.is_tax_applicable || !address || taxable <= 0) return null;
  return taxEngine.calculate({
    amount: taxable,
    currency: row.currency,
    behavior: row.tax_behavior ?? "exclusive",
    country: address.country,
    state: address.state,
    isBusiness: customer.tax_id !== null,
    taxId: customer.tax_id?.[0] ?? null,
    registrations: organization.tax_registrations,
    sellerCountry: organization.legal_address?.country ?? null,
    at: input.now,
  });
}

/** The tax on `taxable` and the net it leaves (less than `taxable` when the prices include the tax). */
export function taxedAmounts(
  taxEngine: TaxEngine,
  parties: { row: SubscriptionRow; organization: OrganizationRow; customer: CustomerRow },
  input: Pick<SubscriptionBill, "product" | "now">,
  taxable: number,
) {
  const computed = taxOf(taxEngine, parties, input, taxable);
  const tax = computed?.amount ?? 0;
  return { computed, tax, net: (parties.row.tax_behavior ?? "exclusive") === "inclusive" ? taxable - tax : taxable };
}

/** A step's events (and their jobs) recorded before the order's, in the same statement: a renewal's subscription events. */
export interface EarlierEvents {
  events: readonly WebhookEvent[];
  jobs: readonly JobSpec[];
}

const NO_EVENTS: EarlierEvents = { events: [], jobs: [] };

/**
 * `order.created` after the `earlier` events, and `order.paid` with its email for an order with
 * nothing to charge, else the recovery job that collects it.
 */
async function publishBilledOrder(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  { row, customer }: { row: SubscriptionRow; customer: CustomerRow },
  { order, created }: { order: OrderRow; created: Order },
  earlier: EarlierEvents,
  now: Date,
): Promise<OrderRow | null> {
  const event = (type: "order.created" | "order.paid") => ({ organizationId: row.organization_id, type, data: created, now });
  if (order.status === "paid") {
    await recordWebhookEvents(trx, [...earlier.events, event("order.created"), event("order.paid")], earlier.jobs);
    if (order.billing_reason === "subscription_cycle") await cycleSubscriptionBenefits(trx, row.id, now);
    await writeRenewalPaidEmail(trx, ctx.deps, { order, items: created.items, subscription: row, customer }, now);
    return null;
  }
  // Should the inline charge never settle (a crash), the job collects the order; it rides in the events' statement.
  await recordWebhookEvents(trx, [...earlier.events, event("order.created")], [...earlier.jobs, collectRecoveryJob(order.id, null, now)]);
  return order;
}

/**
 * Writes a subscription's order: the period's lines less the discount, then the waiting credits
 * and debits of its changes (as `proration` items, not discounted again; credits only as far as
 * the order stays at or above zero, the rest waits), then tax. Nothing to bill writes no order
 * (the `earlier` events are recorded all the same). Returns the order when it waits for a payment.
 */
export async function billOrder(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  row: SubscriptionRow,
  input: SubscriptionBill,
  earlier: EarlierEvents = NO_EVENTS,
) {
  const { now } = input;
  // One after another: a transaction is one connection, which runs one statement at a time.
  const organization = await findOrganization(trx, row.organization_id, null);
  if (!organization) throw new Error(`subscription ${row.id} without its organization`);
  const customer = await findCustomerEvenDeleted(trx, row.customer_id);
  const entries = billableEntries(linesTotal(input.lines) - input.discount, await unbilledEntries(trx, row.id));
  if (input.lines.length === 0 && entries.billed.length === 0) {
    await recordWebhookEvents(trx, earlier.events, earlier.jobs);
    return null;
  }
  const lines = [
    ...input.lines,
    ...entries.billed.map((entry) => ({ priceId: entry.product_price_id, amount: entry.amount, label: entry.label, proration: true })),
  ];
  const subtotal = linesTotal(lines);
  const taxable = subtotal - input.discount;
  const { computed, tax, net } = taxedAmounts(ctx.taxEngine, { row, organization, customer }, input, taxable);
  const { order, published } = await writeAndReadOrder(trx, {
    organization,
    customer,
    checkoutId: null,
    subscriptionId: row.id,
    billingReason: input.billingReason,
    status: net + tax > 0 ? "pending" : "paid",
    product: { id: row.product_id, name: input.product.name },
    lines,
    amounts: { subtotal, discount: input.discount, net, tax, total: net + tax, currency: row.currency },
    taxRate: { basisPoints: computed?.basisPoints ?? null, reverseCharge: computed?.reverseCharge ?? false },
    discountId: input.discountId,
    billing: { name: customer.billing_name ?? customer.name, address: customer.billing_address, taxId: customer.tax_id },
    seats: row.seats,
    metadata: {},
    customFieldData: row.custom_field_data,
    paymentReference: null,
    now,
  });
  await markEntriesBilled(
    trx,
    order.id,
    entries.billed.map((entry) => entry.id),
    entries.split,
  );
  return publishBilledOrder(trx, ctx, { row, customer }, { order, created: published }, earlier, now);
}

/**
 * The closing period's usage alone, on a subscription that does not renew (ended, paused): an
 * order only when there is usage, less the discount that a renewal at `usageEnd` would keep.
 */
export async function billUsage(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  row: SubscriptionRow,
  usage: { lines: PriceLine[]; end: Date; now: Date },
): Promise<OrderRow | null> {
  if (usage.lines.length === 0) return null;
  const product = await findProductBilling(trx, row.product_id);
  const kept = await discountFor(trx, row, usage.end);
  return billOrder(trx, ctx, row, {
    billingReason: "subscription_cycle",
    product,
    lines: usage.lines,
    discount: kept ? discountAmount(kept.discount, linesTotal(usage.lines), row.currency) : 0,
    discountId: kept ? row.discount_id : null,
    now: usage.now,
  });
}

/**
 * Bills a locked subscription's waiting credits and debits now (`proration_behavior: invoice`) in a
 * `subscription_update` order; returns it when it waits for a payment. When the credits outweigh
 * the debits there is nothing to charge: everything waits for the next renewal, which it lowers.
 */
export async function invoiceChanges(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  row: SubscriptionRow,
  now: Date,
): Promise<OrderRow | null> {
  const waiting = await unbilledEntries(trx, row.id);
  if (waiting.reduce((sum, entry) => sum + entry.amount, 0) <= 0) return null;
  const product = await findProductBilling(trx, row.product_id);
  return billOrder(trx, ctx, row, { billingReason: "subscription_update", product, lines: [], discount: 0, discountId: null, now });
}
