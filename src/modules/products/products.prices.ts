import type { Insertable } from "kysely";
import { valueIssue as issue, type ValidationIssue } from "../../http/errors.ts";
import type { ExistingProductPrice, ProductPriceCreate } from "./product-inputs.schemas.ts";
import type { PriceAmountType, ProductPricesTable } from "./products.table.ts";

type Loc = (string | number)[];
export type PriceValues = Omit<Insertable<ProductPricesTable>, "organization_id" | "product_id" | "position">;

/** Rules within one price that the schema cannot express. */
function priceIssues(price: ProductPriceCreate, loc: Loc): ValidationIssue[] {
  if (price.amount_type === "custom") {
    const minimum = price.minimum_amount ?? 50;
    const maximum = price.maximum_amount ?? null;
    const preset = price.preset_amount ?? null;
    if (maximum !== null && maximum < minimum)
      return [issue([...loc, "maximum_amount"], "maximum_amount must be at least minimum_amount.", maximum)];
    if (preset !== null && (preset < minimum || (maximum !== null && preset > maximum))) {
      return [issue([...loc, "preset_amount"], "preset_amount must lie between minimum_amount and maximum_amount.", preset)];
    }
  }
  if (price.amount_type === "seat_based") {
    if (price.seat_tiers.seat_tier_type === "graduated") {
      return [issue([...loc, "seat_tiers", "seat_tier_type"], "Only volume seat tiers are supported.", "graduated")];
    }
    const tiers = price.seat_tiers.tiers;
    for (const [index, tier] of tiers.entries()) {
      const at = [...loc, "seat_tiers", "tiers", index];
      const last = index === tiers.length - 1;
      const max = tier.max_seats ?? null;
      if (index === 0 && tier.min_seats !== 1) return [issue([...at, "min_seats"], "The first tier must start at 1 seat.", tier.min_seats)];
      if (index > 0 && tier.min_seats !== (tiers[index - 1]?.max_seats ?? 0) + 1) {
        return [issue([...at, "min_seats"], "Tiers must follow each other without gaps or overlaps.", tier.min_seats)];
      }
      if (max === null && !last) return [issue([...at, "max_seats"], "Only the last tier may be unbounded.", null)];
      if (max !== null && max < tier.min_seats) return [issue([...at, "max_seats"], "max_seats must be at least min_seats.", max)];
    }
  }
  if (price.amount_type === "metered_unit" && !(Number(price.unit_amount) > 0)) {
    return [issue([...loc, "unit_amount"], "The unit amount must be greater than 0.", price.unit_amount)];
  }
  return [];
}

/** Rules across the prices a product ends up with. */
function priceSetIssues(
  prices: { loc: Loc; amount_type: PriceAmountType; price_currency: string }[],
  recurring: boolean,
  listLoc: Loc,
): ValidationIssue[] {
  if (prices.length === 0) return [issue(listLoc, "A product needs at least one price.", [])];
  const staticCurrencies = new Set<string>();
  for (const price of prices) {
    if (price.amount_type === "metered_unit") {
      if (!recurring) return [issue(price.loc, "Metered prices are only available on recurring products.", price.amount_type)];
      continue;
    }
    if (staticCurrencies.has(price.price_currency))
      return [issue(price.loc, "Only one static price per currency is allowed.", price.price_currency)];
    staticCurrencies.add(price.price_currency);
  }
  return [];
}

const DEFAULT_CURRENCY = "usd";

/** The row of a new price. Meters live in another module: only the ID is kept (see decisions). */
export function priceValues(price: ProductPriceCreate): PriceValues {
  const head = {
    amount_type: price.amount_type,
    price_currency: price.price_currency ?? DEFAULT_CURRENCY,
    tax_behavior: price.tax_behavior ?? null,
    modified_at: null,
  };
  switch (price.amount_type) {
    case "fixed":
      return { ...head, price_amount: price.price_amount };
    case "free":
      return head;
    case "custom":
      return {
        ...head,
        minimum_amount: price.minimum_amount ?? 50,
        maximum_amount: price.maximum_amount ?? null,
        preset_amount: price.preset_amount ?? null,
      };
    case "seat_based":
      return {
        ...head,
        seat_tiers: JSON.stringify(
          price.seat_tiers.tiers.map((t) => ({ min_seats: t.min_seats, max_seats: t.max_seats ?? null, price_per_seat: t.price_per_seat })),
        ),
      };
    case "metered_unit":
      return {
        ...head,
        meter_id: price.meter_id,
        meter_name: null,
        unit_amount: String(price.unit_amount),
        cap_amount: price.cap_amount ?? null,
      };
  }
}

export interface PricePlan {
  /** Live prices to keep, at their new positions; the product's other live prices get archived. */
  keep: { id: string; position: number }[];
  create: { price: ProductPriceCreate; position: number }[];
  issues: ValidationIssue[];
}

/**
 * A requested price list (new prices, and for updates `{id}` of live prices to keep) checked
 * against the product's live prices: the same rules for creation and replacement.
 */
export function planPrices(
  entries: readonly (ProductPriceCreate | ExistingProductPrice)[],
  live: readonly { id: string; amount_type: PriceAmountType; price_currency: string }[],
  recurring: boolean,
): PricePlan {
  const liveById = new Map(live.map((price) => [price.id, price]));
  const plan: PricePlan = { keep: [], create: [], issues: [] };
  const resulting: { loc: Loc; amount_type: PriceAmountType; price_currency: string }[] = [];
  entries.forEach((entry, position) => {
    const loc = ["body", "prices", position];
    if ("amount_type" in entry) {
      plan.issues.push(...priceIssues(entry, loc));
      plan.create.push({ price: entry, position });
      resulting.push({ loc, amount_type: entry.amount_type, price_currency: entry.price_currency ?? DEFAULT_CURRENCY });
      return;
    }
    const kept = liveById.get(entry.id);
    if (!kept || plan.keep.some((k) => k.id === entry.id)) {
      plan.issues.push(issue([...loc, "id"], "Price does not exist.", entry.id));
      return;
    }
    plan.keep.push({ id: entry.id, position });
    resulting.push({ loc, amount_type: kept.amount_type, price_currency: kept.price_currency });
  });
  plan.issues.push(...priceSetIssues(resulting, recurring, ["body", "prices"]));
  return plan;
}
