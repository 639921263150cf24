import { sql, type RawBuilder, type SqlBool } from "kysely";
import { containsPattern } from "../../schema/pagination.ts";
import { isClause, resolveProperty } from "./meter-filter.ts";
import type { FilterClause, FilterOperator, MeterAggregation, MeterFilter } from "./meters.schemas.ts";

/**
 * The meter filter (meter-filter.ts) as SQL: Kysely expressions over an event table alias. One
 * compiler serves the aggregation, the back-fill, quantities and the events list.
 */

const COMPARISON: Record<FilterOperator, string> = {
  eq: "=",
  ne: "<>",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  like: "LIKE",
  not_like: "NOT LIKE",
};

const column = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

function compileClause(clause: FilterClause, alias: string): RawBuilder<SqlBool> {
  const property = resolveProperty(clause.property);
  const op = sql.raw(COMPARISON[clause.operator]);
  const textOperator = clause.operator === "like" || clause.operator === "not_like";
  const operand = textOperator ? containsPattern(String(clause.value)) : clause.value;
  if (property === null) return sql<SqlBool>`false`;
  if (property.kind === "column") {
    if (property.column === "timestamp") {
      return typeof clause.value === "number" && !textOperator
        ? sql<SqlBool>`(${column(alias, "timestamp")} ${op} to_timestamp(${clause.value}::bigint))`
        : sql<SqlBool>`false`;
    }
    return typeof clause.value === "string"
      ? sql<SqlBool>`(${column(alias, property.column)} ${op} ${operand}::text)`
      : sql<SqlBool>`false`;
  }
  const json = sql`(${column(alias, "metadata")} #> ${property.path}::text[])`;
  // As the hosted service's SQL: a string compares with the value's text (so "5" matches 5), a number
  // with numbers only, a boolean with booleans only; a missing key matches nothing, even `ne`.
  if (typeof clause.value === "string")
    return sql<SqlBool>`((${column(alias, "metadata")} #>> ${property.path}::text[]) ${op} ${operand}::text)`;
  // CASE, not AND: SQL may evaluate the operands of AND in any order, and the cast fails on other types.
  if (typeof clause.value === "number") {
    return sql<SqlBool>`(CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::numeric ${op} ${clause.value}::numeric ELSE false END)`;
  }
  return sql<SqlBool>`(CASE WHEN jsonb_typeof(${json}) = 'boolean' THEN (${json})::boolean ${op} ${clause.value}::boolean ELSE false END)`;
}

/** The filter as a boolean SQL expression over the event row `alias`; empty clauses match every event. */
export function compileFilter(filter: MeterFilter, alias: string): RawBuilder<SqlBool> {
  if (filter.clauses.length === 0) return sql<SqlBool>`true`;
  const parts = filter.clauses.map((item) => (isClause(item) ? compileClause(item, alias) : compileFilter(item, alias)));
  return sql<SqlBool>`(${sql.join(parts, sql.raw(filter.conjunction === "and" ? " AND " : " OR "))})`;
}

/**
 * What an event contributes to its meter: `numeric` (the property's number, null when it has none:
 * sum, min, max and avg ignore such events) and `value` (the property's JSON value, for `unique`).
 * Of the columns, `timestamp` is numeric as Unix seconds.
 */
export function aggregatedValue(
  aggregation: MeterAggregation,
  alias: string,
): { numeric: RawBuilder<string | null>; value: RawBuilder<unknown> } {
  if (aggregation.func === "count") return { numeric: sql`NULL::numeric`, value: sql`NULL::jsonb` };
  const property = resolveProperty(aggregation.property);
  if (property === null) return { numeric: sql`NULL::numeric`, value: sql`NULL::jsonb` };
  if (property.kind === "column") {
    const ref = column(alias, property.column);
    return property.column === "timestamp"
      ? { numeric: sql`extract(epoch FROM ${ref})::numeric`, value: sql`to_jsonb(extract(epoch FROM ${ref}))` }
      : { numeric: sql`NULL::numeric`, value: sql`to_jsonb(${ref})` };
  }
  const json = sql`(${column(alias, "metadata")} #> ${property.path}::text[])`;
  return { numeric: sql`CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::numeric END`, value: json };
}

/** The events list's `meter_id`: the meter's filter, and a numeric property where its function needs one. */
export function meterEventCondition(filter: MeterFilter, aggregation: MeterAggregation, alias: string): RawBuilder<SqlBool> {
  const matches = compileFilter(filter, alias);
  if (aggregation.func === "count" || aggregation.func === "unique") return matches;
  return sql<SqlBool>`(${matches} AND ${aggregatedValue(aggregation, alias).numeric} IS NOT NULL)`;
}
