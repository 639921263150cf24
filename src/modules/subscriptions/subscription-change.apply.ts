import { randomUUID } from "node:crypto";
import type { Executor } from "../../db/database.ts";
import { switchSubscriptionBenefits } from "../benefits/benefits.steps.ts";
import { syncSubscriptionSeats } from "../customer-seats/customer-seats.steps.ts";
import { findHeldDiscount } from "../discounts/discounts.steps.ts";
import { discountAmount } from "../discounts/discounts.steps.ts";
import type { ProductPriceJson, ProductWithRelations } from "../products/products.mapper.ts";
import { findProductWithRelations } from "../products/products.steps.ts";
import { seatAmount, seatRange } from "../products/products.steps.ts";
import { discountedLines, type PriceLine } from "./subscription-proration.ts";
import { findProductBilling } from "../products/products.steps.ts";
import * as repo from "./subscriptions.repository.ts";
import type { PendingUpdate, SubscriptionRow } from "./subscriptions.table.ts";

// What a subscription bills per period and how a change of product or seats rewrites it. Shared by
// the changes requested now (subscription-plan-change.request.ts) and those applied at the period end
// (src/flows/renew-subscriptions.ts).

const seatLabel = (productName: string, seats: number | null) => `${productName} (${seats ?? 1} seats)`;

/** The subscription's frozen static prices as order lines (metered prices bill in arrears, elsewhere). */
export async function subscriptionLines(db: Executor, row: SubscriptionRow, productName: string): Promise<PriceLine[]> {
  const prices = await repo.frozenPrices(db, row.id);
  return prices.flatMap((price) =>
    price.amount === null
      ? []
      : [
          {
            priceId: price.product_price_id,
            amount: price.amount,
            label: price.amount_type === "seat_based" ? seatLabel(productName, row.seats) : productName,
          },
        ],
  );
}

/** The amount a period bills: the frozen prices less the discount. */
export async function periodAmount(db: Executor, row: SubscriptionRow, discountId: string | null): Promise<number> {
  const prices = await repo.frozenPrices(db, row.id);
  const subtotal = prices.reduce((sum, price) => sum + (price.amount ?? 0), 0);
  if (!discountId) return subtotal;
  const discount = await findHeldDiscount(db, row.organization_id, discountId);
  return subtotal - discountAmount(discount ?? null, subtotal, row.currency);
}

/**
 * The lines less the discount the current period was billed with (none when the discount was set
 * during the period: it is first billed at the next renewal). Prorations are computed on these, so
 * a credit never gives back more than was paid, and the next order does not discount them again.
 */
export async function billedLines(db: Executor, row: SubscriptionRow, lines: PriceLine[]): Promise<PriceLine[]> {
  if (!row.discount_id || !row.discount_applied_at) return lines;
  const discount = await findHeldDiscount(db, row.organization_id, row.discount_id);
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  return discountedLines(lines, discountAmount(discount ?? null, subtotal, row.currency));
}

/** What a price bills per period for `seats` seats; null for a metered price (billed on usage). */
function periodPriceAmount(price: ProductPriceJson, seats: number | null): number | null {
  switch (price.amount_type) {
    case "fixed":
      return price.price_amount ?? 0;
    case "seat_based":
      return seatAmount(price.seat_tiers ?? [], seats ?? 1);
    case "metered_unit":
      return null;
    default:
      return 0;
  }
}

/** The product's live prices in the subscription's currency. */
export const productPricesIn = (product: ProductWithRelations, currency: string) =>
  product.prices.filter((price) => price.price_currency === currency && !price.is_archived);

/** The seat count a product change keeps: the current one within the new tiers' bounds, else the nearest bound. */
function seatsFor(prices: readonly ProductPriceJson[], seats: number | null): number | null {
  const seatPrice = prices.find((price) => price.amount_type === "seat_based");
  if (!seatPrice) return null;
  const range = seatRange(seatPrice.seat_tiers ?? []);
  const wanted = seats ?? range.minimum;
  return Math.max(range.minimum, range.maximum === null ? wanted : Math.min(wanted, range.maximum));
}

export interface PlanSwitch {
  row: SubscriptionRow;
  /** The lines of the period before and after the change, each less the discount it bills with. */
  before: PriceLine[];
  after: PriceLine[];
}

/**
 * Moves a locked subscription to another product: its prices in the subscription's currency are
 * frozen at today's amounts, its interval becomes the product's, its benefits follow (old ones
 * revoked, new ones granted: to its claimed seats' holders when seat-based), and `amount` is the new period's. Prorating is the caller's.
 */
export async function switchProduct(db: Executor, row: SubscriptionRow, product: ProductWithRelations, now: Date): Promise<PlanSwitch> {
  const old = await findProductBilling(db, row.product_id);
  const before = await billedLines(db, row, await subscriptionLines(db, row, old.name));
  const prices = productPricesIn(product, row.currency);
  const seats = seatsFor(prices, row.seats);
  await repo.replaceSubscriptionPrices(
    db,
    row.id,
    prices.map((price, position) => ({
      subscription_id: row.id,
      product_price_id: price.id,
      organization_id: row.organization_id,
      amount: periodPriceAmount(price, seats),
      position,
    })),
  );
  const switched = await repo.updateSubscription(db, row.id, {
    product_id: product.id,
    recurring_interval: product.recurring_interval ?? row.recurring_interval,
    recurring_interval_count: product.recurring_interval_count ?? row.recurring_interval_count,
    seats,
    amount: await periodAmount(db, row, row.discount_id),
    modified_at: now,
  });
  // A seat-based product's benefits go to its claimed seats' holders, never to the buyer.
  await switchSubscriptionBenefits(db, {
    customerId: row.customer_id,
    subscriptionId: row.id,
    benefits: seats === null ? product.benefits : [],
    granted: row.status === "active" || row.status === "trialing",
    now,
  });
  await syncSubscriptionSeats(db, row.id, product.benefits, now);
  return { row: switched, before, after: await billedLines(db, switched, await subscriptionLines(db, switched, product.name)) };
}

/** Sets a locked subscription's seats: its seat price is repriced from its own tiers for the new count. */
export async function setSeatCount(db: Executor, row: SubscriptionRow, seats: number, now: Date): Promise<PlanSwitch> {
  const product = await findProductBilling(db, row.product_id);
  const before = await billedLines(db, row, await subscriptionLines(db, row, product.name));
  for (const price of await repo.frozenPrices(db, row.id)) {
    if (price.amount_type === "seat_based")
      await repo.setSubscriptionPriceAmount(db, row.id, price.product_price_id, seatAmount(price.seat_tiers ?? [], seats));
  }
  const changed = await repo.updateSubscription(db, row.id, {
    seats,
    amount: await periodAmount(db, row, row.discount_id),
    modified_at: now,
  });
  return { row: changed, before, after: await billedLines(db, changed, await subscriptionLines(db, changed, product.name)) };
}

/** Schedules a change for the period end, merged with what is already scheduled. */
export function scheduleUpdate(row: SubscriptionRow, change: { productId?: string; seats?: number }, now: Date): PendingUpdate {
  return {
    id: row.pending_update?.id ?? randomUUID(),
    created_at: row.pending_update?.created_at ?? now.toISOString(),
    applies_at: row.current_period_end.toISOString(),
    product_id: change.productId ?? row.pending_update?.product_id ?? null,
    seats: change.seats ?? row.pending_update?.seats ?? null,
  };
}

/**
 * Applies a locked subscription's scheduled change as its period ends, before the next period is
 * billed. A product that no longer sells in the subscription's currency (or is gone) is dropped.
 */
export async function applyPendingUpdate(db: Executor, row: SubscriptionRow, now: Date): Promise<SubscriptionRow> {
  const pending = row.pending_update;
  if (!pending) return row;
  let current = await repo.updateSubscription(db, row.id, { pending_update: null });
  if (pending.product_id) {
    const product = await findProductWithRelations(db, pending.product_id, [row.organization_id]);
    if (product && !product.is_archived && productPricesIn(product, row.currency).length > 0)
      current = (await switchProduct(db, current, product, now)).row;
  }
  if (pending.seats !== null && current.seats !== null && pending.seats !== current.seats)
    current = (await setSeatCount(db, current, pending.seats, now)).row;
  return current;
}
