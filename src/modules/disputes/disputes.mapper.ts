import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { toCustomer } from "../customers/customers.mapper.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import type { DisputeEmbeddedRow } from "./disputes.repository.ts";
import type { Dispute } from "./disputes.schemas.ts";
import type { DisputeStatus } from "./disputes.table.ts";

const RESOLVED: ReadonlySet<DisputeStatus> = new Set(["won", "lost"]);
const CLOSED: ReadonlySet<DisputeStatus> = new Set(["prevented", "won", "lost"]);

/** Whether no further processor event may change the dispute's outcome. */
export const isClosed = (status: DisputeStatus): boolean => CLOSED.has(status);

/** `past_due` is read at `now`, as the processor's flag is: the deadline has passed (docs/decisions.md, "Disputes"). */
export function toDispute({ customer, ...row }: DisputeEmbeddedRow, now: Date): Dispute {
  // The customer is a foreign key of the dispute: it is always there.
  if (!customer) throw new Error(`dispute ${row.id} without its customer`);
  // JSON aggregation widens the stored `[number, format]` tax id pair to a list.
  const embedded = toCustomer({ ...customer, tax_id: customer.tax_id as CustomerRow["tax_id"] });
  return {
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    id: row.id,
    status: row.status,
    resolved: RESOLVED.has(row.status),
    closed: isClosed(row.status),
    amount: row.amount,
    tax_amount: row.tax_amount,
    currency: row.currency,
    reason: row.reason,
    evidence_due_by: toIsoOrNull(row.evidence_due_by),
    past_due: row.evidence_due_by !== null && row.evidence_due_by.getTime() <= now.getTime(),
    order_id: row.order_id,
    payment_id: row.payment_id,
    customer: { ...embedded, email: embedded.email ?? null },
    // This service opens no support cases.
    case_id: null,
  };
}
