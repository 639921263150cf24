/**
 * Rows read through Postgres JSON aggregation (`jsonArrayFrom`) arrive with timestamps as text,
 * though Kysely types them as the table's `Date`. This names that wire shape honestly.
 */
export type Jsonified<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

/** Timestamps from JSON aggregation (any offset, microseconds) → the API's ISO form. */
export const isoFromJson = (value: string): string => new Date(value).toISOString();
export const isoFromJsonOrNull = (value: string | null): string | null => (value === null ? null : isoFromJson(value));

/** Rows that may come either way: read directly (Date) or through JSON aggregation (text). */
export type EitherTimestamps<T> = {
  [K in keyof T]: T[K] extends Date ? Date | string : T[K] extends Date | null ? Date | string | null : T[K];
};
export const isoFrom = (value: Date | string): string => new Date(value).toISOString();
export const isoFromOrNull = (value: Date | string | null): string | null => (value === null ? null : isoFrom(value));
