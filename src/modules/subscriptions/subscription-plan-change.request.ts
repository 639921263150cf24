import type { Executor } from "../../db/database.ts";
import { RequestValidationError, fieldIssue } from "../../http/errors.ts";
import { addInterval } from "../../values/calendar.ts";
import type { ProductWithRelations } from "../products/products.mapper.ts";
import { findProductWithRelations } from "../products/products.steps.ts";
import { seatRange } from "../products/products.steps.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { toOrganization } from "../organizations/organizations.mapper.ts";
import type { SubscriptionProrationBehavior } from "./subscription-inputs.schemas.ts";
import { isBillable, isCanceling, type Actor, type Change } from "./subscription-lifecycle.ts";
import { setSeatCount, productPricesIn, scheduleUpdate, switchProduct, type PlanSwitch } from "./subscription-change.apply.ts";
import { insertBillingEntries } from "./subscription-billing-entries.repository.ts";
import { prorationEntries, remainingShare } from "./subscription-proration.ts";
import { AboveMaximumSeats, AlreadyCanceledSubscription, BelowMinimumSeats, NotASeatBasedSubscription } from "./subscriptions.errors.ts";
import * as repo from "./subscriptions.repository.ts";
import type { PendingUpdate, SubscriptionRow } from "./subscriptions.table.ts";

// A requested product or seat change (`PATCH` with `product_id` or `seats`): the hosted service's checks and errors,
// then the change billed as its `proration_behavior` says.

const invalid = (field: string, message: string, input: unknown) =>
  new RequestValidationError([fieldIssue(["body", field], message, input, "value_error")]);

/** The behavior asked for, else the organization's; `reset` only where the organization has it enabled. */
async function prorationBehavior(
  trx: Executor,
  row: SubscriptionRow,
  requested: SubscriptionProrationBehavior | null | undefined,
): Promise<SubscriptionProrationBehavior> {
  const stored = await findOrganization(trx, row.organization_id, null);
  if (!stored) throw new Error(`subscription ${row.id} without its organization`);
  const organization = toOrganization(stored);
  const behavior = requested ?? organization.subscription_settings.proration_behavior;
  if (behavior === "reset" && !organization.feature_settings?.reset_proration_behavior_enabled)
    throw invalid("proration_behavior", "The 'reset' proration behavior is not enabled for this organization.", behavior);
  return behavior;
}

/** The product to switch to, with the hosted service's refusals in its order. */
async function targetProduct(trx: Executor, row: SubscriptionRow, productId: string, actor: Actor): Promise<ProductWithRelations> {
  const refuse = (message: string) => invalid("product_id", message, productId);
  const product = await findProductWithRelations(trx, productId, [row.organization_id]);
  if (!product) throw refuse("Product does not exist.");
  if (product.is_archived) throw refuse("Product is archived.");
  if (actor === "customer" && product.visibility !== "public") throw refuse("Product visibility is not allowed.");
  if (!product.recurring_interval) throw refuse("Product is not recurring.");
  const prices = productPricesIn(product, row.currency);
  if (prices.length === 0) throw refuse("This product doesn't have a price for the subscription currency.");
  if (prices.some((price) => price.amount_type === "custom")) throw refuse("Can't update to a product with custom prices.");
  return product;
}

/** The scheduled change without the part an immediate change of the same kind replaces. */
function pendingWithout(row: SubscriptionRow, kind: "product_id" | "seats"): string | null {
  const pending: PendingUpdate | null = row.pending_update ? { ...row.pending_update, [kind]: null } : null;
  return pending && (pending.product_id !== null || pending.seats !== null) ? JSON.stringify(pending) : null;
}

/** A new period from now: the cycle restarts, billed and charged at once. */
const restartNow = (now: Date, values: Change["values"]): Change => ({
  values: { ...values, current_period_end: now, anchor_day: now.getUTCDate() },
  events: [],
  then: "restart",
});

/**
 * Records the credits and debits of a change made mid-period; with `invoice` they are billed now,
 * else they wait for the next renewal. A change that nets nothing writes nothing.
 */
async function prorate(
  trx: Executor,
  row: SubscriptionRow,
  change: Pick<PlanSwitch, "before" | "after">,
  behavior: SubscriptionProrationBehavior,
  now: Date,
): Promise<Change> {
  const entries = prorationEntries(change, remainingShare({ start: row.current_period_start, end: row.current_period_end }, now), {
    credit: (line) => `Unused time on ${line.label}`,
    debit: (line) => `Remaining time on ${line.label}`,
  });
  await insertBillingEntries(
    trx,
    entries.map((entry) => ({
      created_at: now,
      organization_id: row.organization_id,
      subscription_id: row.id,
      product_price_id: entry.priceId,
      label: entry.label,
      amount: entry.amount,
      order_id: null,
    })),
  );
  return { values: {}, events: [], ...(behavior === "invoice" && entries.length > 0 ? { then: "invoice" as const } : {}) };
}

/**
 * Moves a locked subscription to another product. `next_period` schedules it for the period end;
 * on a trial it applies with no proration (the trial's length becomes the new product's); `reset`
 * and a change of interval restart the period now (credited for the unused time, except `reset`);
 * otherwise the rest of the period is prorated.
 */
export async function requestProductSwitch(
  trx: Executor,
  row: SubscriptionRow,
  input: { productId: string; behavior: SubscriptionProrationBehavior | null | undefined; actor: Actor },
  now: Date,
): Promise<Change> {
  if (!isBillable(row) || isCanceling(row)) throw new AlreadyCanceledSubscription();
  const behavior = await prorationBehavior(trx, row, input.behavior);
  const product = await targetProduct(trx, row, input.productId, input.actor);
  const seatBasedNow = (await repo.frozenPrices(trx, row.id)).some((price) => price.amount_type === "seat_based");
  const seatBasedNext = productPricesIn(product, row.currency).some((price) => price.amount_type === "seat_based");
  if (seatBasedNow && !seatBasedNext)
    throw invalid("product_id", "Can't switch from a seat-based to a non-seat-based product.", input.productId);
  if (!seatBasedNow && seatBasedNext && behavior === "next_period")
    throw invalid("proration_behavior", "A change to a seat-based product applies now, not at the next period.", behavior);
  if (behavior === "next_period")
    return { values: { pending_update: JSON.stringify(scheduleUpdate(row, { productId: product.id }, now)) }, events: [] };

  const intervalChanges =
    product.recurring_interval !== row.recurring_interval || (product.recurring_interval_count ?? 1) !== row.recurring_interval_count;
  const switched = await switchProduct(trx, row, product, now);
  const pending = { pending_update: pendingWithout(row, "product_id") };
  if (row.status === "trialing") {
    // The trial lasts what the new product's would have from its start; over (or none), it converts now.
    const trialEnd =
      row.trial_start && product.trial_interval && product.trial_interval_count
        ? addInterval(row.trial_start, product.trial_interval, product.trial_interval_count)
        : null;
    if (!trialEnd || trialEnd <= now) return { values: { ...pending, trial_end: now, current_period_end: now }, events: [], then: "renew" };
    return { values: { ...pending, trial_end: trialEnd, current_period_end: trialEnd }, events: [] };
  }
  if (behavior === "reset") return restartNow(now, pending);
  if (intervalChanges) {
    // The new interval starts now: the unused old time is credited against the new period's charge.
    await prorate(trx, row, { before: switched.before, after: [] }, "prorate", now);
    return restartNow(now, pending);
  }
  const change = await prorate(trx, row, switched, behavior, now);
  return { ...change, values: { ...change.values, ...pending } };
}

/**
 * Sets the seats of a locked, seat-based subscription within its price's tiers. The same count
 * changes nothing (and drops a scheduled seat change); `next_period` schedules it; on a trial it
 * applies with no proration; otherwise as a product change.
 */
export async function requestSeatCount(
  trx: Executor,
  row: SubscriptionRow,
  input: { seats: number; behavior: SubscriptionProrationBehavior | null | undefined },
  now: Date,
): Promise<Change> {
  if (!isBillable(row) || isCanceling(row)) throw new AlreadyCanceledSubscription();
  const behavior = await prorationBehavior(trx, row, input.behavior);
  const seatPrice = (await repo.frozenPrices(trx, row.id)).find((price) => price.amount_type === "seat_based");
  if (!seatPrice) throw new NotASeatBasedSubscription();
  const range = seatRange(seatPrice.seat_tiers ?? []);
  if (input.seats < range.minimum) throw new BelowMinimumSeats(range.minimum);
  if (range.maximum !== null && input.seats > range.maximum) throw new AboveMaximumSeats(range.maximum);
  const pending = { pending_update: pendingWithout(row, "seats") };
  if (input.seats === row.seats) return { values: pending, events: [] };
  if (behavior === "next_period")
    return { values: { pending_update: JSON.stringify(scheduleUpdate(row, { seats: input.seats }, now)) }, events: [] };

  const switched = await setSeatCount(trx, row, input.seats, now);
  if (row.status === "trialing") return { values: pending, events: [] };
  if (behavior === "reset") return restartNow(now, pending);
  const change = await prorate(trx, row, switched, behavior, now);
  return { ...change, values: { ...change.values, ...pending } };
}
