import type { SeatTier } from "./products.table.ts";

type Tier = Pick<SeatTier, "min_seats" | "price_per_seat"> & { max_seats?: number | null };

/** A seat price's bounds: the first tier's minimum and the last tier's maximum (null: no limit). */
export function seatRange(tiers: readonly Tier[]): { minimum: number; maximum: number | null } {
  return { minimum: tiers[0]?.min_seats ?? 1, maximum: tiers.length ? (tiers[tiers.length - 1]?.max_seats ?? null) : null };
}

/** What `seats` seats cost per period: the tier containing the count prices every seat (volume tiers). */
export function seatAmount(tiers: readonly Tier[], seats: number): number {
  const tier = tiers.find((t) => seats >= t.min_seats && (t.max_seats == null || seats <= t.max_seats)) ?? tiers[tiers.length - 1];
  return tier ? tier.price_per_seat * seats : 0;
}
