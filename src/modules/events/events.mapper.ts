import { toIso } from "../../schema/primitives.ts";
import { toCustomer, type CustomerReadRow } from "../customers/customers.mapper.ts";
import type { EventNameRow, EventReadRow } from "./events.repository.ts";
import type { Event, EventName } from "./events.schemas.ts";

/** Event types are labelled with their name until an organization renames them. */
const labelOf = (name: string): string => name;

export function toEvent(row: EventReadRow, customer: CustomerReadRow | null): Event {
  return {
    id: row.id,
    timestamp: toIso(row.timestamp),
    organization_id: row.organization_id,
    customer_id: row.customer_id,
    customer: customer === null ? null : toCustomer(customer),
    external_customer_id: row.external_customer_id,
    member_id: row.member_id,
    external_member_id: row.external_member_id,
    child_count: row.child_count,
    parent_id: row.resolved_parent_id,
    label: labelOf(row.name),
    name: row.name,
    source: "user",
    // Stored from validated input, whose shape the output schema mirrors.
    metadata: row.metadata,
  };
}

/** Finds each event's customer: by id, else by the external id within the event's organization. */
export function customerMatcher(customers: readonly CustomerReadRow[]) {
  const byId = new Map(customers.map((c) => [c.id, c]));
  const byExternal = new Map(
    customers.filter((c) => c.external_id !== null && c.deleted_at === null).map((c) => [`${c.organization_id}\u0000${c.external_id}`, c]),
  );
  return (row: EventReadRow): CustomerReadRow | null =>
    row.customer_id !== null
      ? (byId.get(row.customer_id) ?? null)
      : row.external_customer_id !== null
        ? (byExternal.get(`${row.organization_id}\u0000${row.external_customer_id}`) ?? null)
        : null;
}

export function toEventName(row: EventNameRow): EventName {
  return {
    name: row.name,
    label: labelOf(row.name),
    source: row.source,
    occurrences: row.occurrences,
    first_seen: toIso(row.first_seen),
    last_seen: toIso(row.last_seen),
  };
}
