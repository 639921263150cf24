import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";

/** The SQL of list filters many resources share (their query parameters: schema/pagination.ts). */

/** The `metadata` query filter as parsed (`MetadataQuery`): a value or several per key. */
export type MetadataFilter = Readonly<Record<string, string | readonly string[]>>;

/**
 * Values of one key are OR'd, keys are AND'd. Compared as text (`->>`), so `true` and `5` also
 * match stored booleans and numbers.
 */
export function metadataMatches<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  column: string,
  filter: MetadataFilter,
): Expression<SqlBool> {
  return eb.and(
    Object.entries(filter).map(([key, values]) =>
      eb(sql<string>`${sql.ref(column)} ->> ${key}`, "in", typeof values === "string" ? [values] : [...values]),
    ),
  );
}

/**
 * Rows whose customer (the `customerColumn`, e.g. `o.customer_id`) answers to one of these
 * external ids. Soft-deleted customers no longer answer to theirs.
 */
export const customerExternalIdIn = (customerColumn: string, externalIds: readonly string[]): Expression<SqlBool> =>
  sql<SqlBool>`exists (select 1 from customers as c where c.id = ${sql.ref(customerColumn)} and c.external_id in (${sql.join(externalIds)}) and c.deleted_at is null)`;
