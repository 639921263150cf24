const ESCAPED = /[\\"]/;
const ESCAPED_ALL = /[\\"]/g;

/**
 * One element of a PostgreSQL array literal (`{…}`, elements joined by commas): NULL, or the text
 * quoted with `"` and `\` escaped. Building literals ourselves lets a large batch be encoded in
 * slices instead of inside the driver in one go. Most values (ids, names, timestamps) have nothing to
 * escape; testing first spares them the replace.
 */
export const arrayElement = (value: string | null): string =>
  value === null ? "NULL" : ESCAPED.test(value) ? `"${value.replace(ESCAPED_ALL, "\\$&")}"` : `"${value}"`;

/** The elements of one array literal, without its braces: each item's value, joined by commas. */
export function arrayElements<T>(items: readonly T[], value: (item: T) => string | null): string {
  let out = "";
  for (let i = 0; i < items.length; i += 1) out += (i === 0 ? "" : ",") + arrayElement(value(items[i]!));
  return out;
}
