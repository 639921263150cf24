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
