/**
 * Money is integer minor units. The one rounding rule: half away from zero, applied once, at the
 * end of a computation on exact integers (see docs/decisions.md, "Rounding").
 */
export function roundHalfAwayFromZero(numerator: number, denominator: number): number {
  if (denominator <= 0) throw new RangeError("denominator must be positive");
  const sign = numerator < 0 ? -1 : 1;
  const magnitude = Math.abs(numerator);
  const quotient = Math.floor(magnitude / denominator);
  const remainder = magnitude - quotient * denominator;
  const rounded = remainder * 2 >= denominator ? quotient + 1 : quotient;
  return rounded === 0 ? 0 : sign * rounded;
}

/** `amount × basisPoints / 10 000`, rounded half away from zero. */
export const applyBasisPoints = (amount: number, basisPoints: number): number => roundHalfAwayFromZero(amount * basisPoints, 10_000);

/** Tax contained in a tax-inclusive `gross` at `basisPoints`: `gross × bp / (10 000 + bp)`, same rounding. */
export const includedTax = (gross: number, basisPoints: number): number => roundHalfAwayFromZero(gross * basisPoints, 10_000 + basisPoints);

/**
 * Splits `total` across `weights` proportionally; the shares are rounded down and the remainder
 * goes to the largest weights first, so the shares always add up to `total` exactly.
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const shares = weights.map((w) => Math.floor((total * w) / sum));
  let remainder = total - shares.reduce((a, b) => a + b, 0);
  const order = weights.map((w, i) => [w, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; remainder > 0; k = (k + 1) % order.length, remainder -= 1) shares[order[k]![1]]! += 1;
  return shares;
}

/**
 * `amount × part / whole` (a share of a period, in milliseconds), rounded by the one rule; computed
 * on BigInt so that a large amount over a year's milliseconds stays exact.
 */
export function prorate(amount: number, part: number, whole: number): number {
  if (whole <= 0) throw new RangeError("whole must be positive");
  const share = Math.min(Math.max(part, 0), whole);
  const numerator = BigInt(Math.abs(amount)) * BigInt(Math.round(share));
  const denominator = BigInt(Math.round(whole));
  const quotient = numerator / denominator;
  const rounded = (numerator % denominator) * 2n >= denominator ? quotient + 1n : quotient;
  return amount < 0 && rounded > 0n ? -Number(rounded) : Number(rounded);
}

/**
 * `amount × part / whole` rounded half to even (banker's rounding), for the few amounts the hosted service
 * rounds that way (a refund's tax share); computed on BigInt so the product of two large amounts
 * stays exact. All three are non-negative integers, `whole` positive.
 */
export function scaleHalfToEven(amount: number, part: number, whole: number): number {
  if (whole <= 0 || amount < 0 || part < 0) throw new RangeError("amount and part must be non-negative and whole positive");
  const numerator = BigInt(amount) * BigInt(part);
  const denominator = BigInt(whole);
  const quotient = numerator / denominator;
  const twice = (numerator % denominator) * 2n;
  const up = twice > denominator || (twice === denominator && quotient % 2n === 1n);
  return Number(up ? quotient + 1n : quotient);
}
