/**
 * One element of a PostgreSQL array literal (`{…}`, elements joined by commas): NULL, or the text
 * quoted with `"` and `\` escaped. Building literals ourselves lets a large batch be encoded in
 * slices instead of inside the driver in one go.
 */
export const arrayElement = (value: string | null): string => (value === null ? "NULL" : `"${value.replace(/[\\"]/g, "\\$&")}"`);
