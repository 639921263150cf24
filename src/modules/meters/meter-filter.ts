import { fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { bodyAjv, toValidationIssues } from "../../http/validation.ts";
import { Filter, type FilterClause, type MeterAggregation, type MeterFilter } from "./meters.schemas.ts";

/**
 * The meter filter grammar, pure: which event property a clause names and the 422 issues of a
 * filter or an aggregation. The SQL that evaluates them is meter-filter.repository.ts.
 */

export type EventProperty = { kind: "column"; column: "name" | "source" | "timestamp" } | { kind: "metadata"; path: string[] };

const COLUMNS = new Set(["name", "source", "timestamp"]);
/** Event fields a filter cannot name bare: most likely a mistake; `metadata.<key>` reaches such a key. */
const NOT_FILTERABLE = new Set([
  "id",
  "organization_id",
  "customer_id",
  "external_customer_id",
  "member_id",
  "external_member_id",
  "external_id",
  "parent_id",
  "ingested_at",
]);
const METADATA_PREFIX = "metadata.";
const MAX_KEY_LENGTH = 40;

/**
 * As the hosted service: a leading `metadata.` is dropped once, then `name`, `source` and `timestamp` are
 * the event's columns and anything else a dotted metadata path. Null for a property this service
 * refuses: an empty path or segment, a segment longer than a metadata key, or a bare event field
 * that is not filterable.
 */
export function resolveProperty(property: string): EventProperty | null {
  const prefixed = property.startsWith(METADATA_PREFIX);
  const path = prefixed ? property.slice(METADATA_PREFIX.length) : property;
  if (COLUMNS.has(path)) return { kind: "column", column: path as "name" | "source" | "timestamp" };
  if (!prefixed && NOT_FILTERABLE.has(path)) return null;
  const segments = path.split(".");
  if (segments.some((segment) => segment.length === 0 || segment.length > MAX_KEY_LENGTH)) return null;
  return { kind: "metadata", path: segments };
}

export const isClause = (item: FilterClause | MeterFilter): item is FilterClause => "property" in item;

type Loc = (string | number)[];

function clauseIssues(clause: FilterClause, loc: Loc): ValidationIssue[] {
  const property = resolveProperty(clause.property);
  if (property === null) {
    return [fieldIssue([...loc, "property"], `Unknown property: ${JSON.stringify(clause.property)}.`, clause.property, "unknown_property")];
  }
  const textOperator = clause.operator === "like" || clause.operator === "not_like";
  if (textOperator && typeof clause.value !== "string") {
    return [fieldIssue([...loc, "value"], "The like and not_like operators need a string value.", clause.value, "string_type")];
  }
  if (property.kind === "metadata") return [];
  if (property.column === "timestamp") {
    return typeof clause.value === "number" && !textOperator
      ? []
      : [fieldIssue([...loc, "value"], "timestamp is compared with an integer (Unix seconds).", clause.value, "int_type")];
  }
  return typeof clause.value === "string"
    ? []
    : [fieldIssue([...loc, "value"], `${property.column} is compared with a string.`, clause.value, "string_type")];
}

/** Every issue of a filter (the schema has checked its shape), each at its `loc` below `loc`. */
export function filterIssues(filter: MeterFilter, loc: Loc): ValidationIssue[] {
  return filter.clauses.flatMap((item, index) =>
    isClause(item) ? clauseIssues(item, [...loc, "clauses", index]) : filterIssues(item, [...loc, "clauses", index]),
  );
}

/** The aggregation as stored (its function written out), or its issues at `loc`. */
export function normalizeAggregation(
  input: { func?: string; property?: string },
  loc: Loc,
): { aggregation: MeterAggregation } | { issues: ValidationIssue[] } {
  const func = input.func ?? (input.property === undefined ? "count" : "unique");
  if (func === "count") return { aggregation: { func: "count" } };
  const property = input.property ?? "";
  const resolved = resolveProperty(property);
  if (resolved === null) {
    return { issues: [fieldIssue([...loc, "property"], `Unknown property: ${JSON.stringify(property)}.`, property, "unknown_property")] };
  }
  if (func === "unique") return { aggregation: { func, property } };
  if (resolved.kind === "column" && resolved.column !== "timestamp") {
    return {
      issues: [
        fieldIssue([...loc, "property"], `${resolved.column} is not numeric: ${func} needs a numeric property.`, property, "not_numeric"),
      ],
    };
  }
  return { aggregation: { func: func as "sum" | "max" | "min" | "avg", property } };
}

const validateFilter = bodyAjv.compile<MeterFilter>(Filter);

/**
 * A filter sent as JSON text (the events list's `filter`): the filter, or its issues. As the hosted service,
 * each `loc` is the path inside the filter, without the `query` prefix.
 */
export function parseFilterText(text: string): { filter: MeterFilter } | { issues: ValidationIssue[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { issues: [fieldIssue([], "Invalid JSON", text, "json_invalid")] };
  }
  if (!validateFilter(value)) {
    return { issues: toValidationIssues("body", validateFilter.errors ?? []).map((issue) => ({ ...issue, loc: issue.loc.slice(1) })) };
  }
  const issues = filterIssues(value, []);
  return issues.length > 0 ? { issues } : { filter: value };
}
