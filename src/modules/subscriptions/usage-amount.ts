// The arithmetic of metered prices: exact decimals as scaled BigInts, no floats. One rounding rule
// (docs/decisions.md, "Metered billing: amounts"): the exact product unit × quantity is rounded half
// away from zero once, to whole minor units, then capped.

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A decimal string as `digits / 10^scale`, exactly. */
function parseDecimal(text: string): { digits: bigint; scale: number } {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal: ${text}`);
  const fraction = match[3] ?? "";
  const digits = BigInt(`${match[2]}${fraction}`);
  return { digits: match[1] === "-" ? -digits : digits, scale: fraction.length };
}

/**
 * What a metered price charges for `quantity`: `unitAmount` (minor units, a decimal string with up
 * to 12 decimals) × max(0, quantity), rounded half away from zero, at most `capAmount` when set.
 * Throws when the amount is beyond what an order can hold exactly (2^53 − 1 minor units).
 */
export function usageAmount(unitAmount: string, quantity: string, capAmount: number | null): number {
  const unit = parseDecimal(unitAmount);
  const used = parseDecimal(quantity);
  const product = unit.digits * (used.digits > 0n ? used.digits : 0n);
  const divisor = 10n ** BigInt(unit.scale + used.scale);
  // The product is never negative (a unit amount is positive), so half away from zero is half up.
  const quotient = product / divisor;
  const rounded = 2n * (product % divisor) >= divisor ? quotient + 1n : quotient;
  const capped = capAmount !== null && rounded > BigInt(capAmount) ? BigInt(capAmount) : rounded;
  if (capped > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`usage amount ${capped} is beyond an order's range`);
  return Number(capped);
}

/** Whether a decimal string is above zero, exactly. */
export const isPositiveDecimal = (text: string): boolean => parseDecimal(text).digits > 0n;

/** `max(0, a − b)` of two decimal strings, exactly, as a decimal string (the units left to bill after credits). */
export function decimalExcess(a: string, b: string): string {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const scale = Math.max(x.scale, y.scale);
  const difference = x.digits * 10n ** BigInt(scale - x.scale) - y.digits * 10n ** BigInt(scale - y.scale);
  if (difference <= 0n) return "0";
  const text = difference.toString().padStart(scale + 1, "0");
  return scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
}
