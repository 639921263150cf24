import { createHash } from "node:crypto";
import type { Executor } from "../../db/database.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import type { Metadata } from "../../schema/primitives.ts";
import { toCustomer } from "./customers.mapper.ts";
import { updateCustomer } from "./customers.repository.ts";
import type { CustomerRow } from "./customers.table.ts";
import { deleteMembersOfCustomer } from "./members.repository.ts";

// A customer's own part of its deletion (the flow `delete-customer.ts` ends its subscriptions and
// grants first): the row soft-deleted, its external ID freed, its members gone, `customer.deleted`.

/** Where a deleted customer keeps its external ID, as the hosted service keeps it. */
const EXTERNAL_ID_KEY = "__external_id";
const ANONYMIZED_AT_KEY = "__anonymized_at";

const digest = (value: string) => createHash("sha256").update(value).digest("hex");

/**
 * The personal data a GDPR deletion removes, as the hosted service anonymizes it: the email becomes
 * a hashed address nobody receives mail at, name and billing name hashes (a business's name, one
 * with a tax ID, stays: its invoices name it), the address cleared. External ID and tax ID stay.
 */
function anonymized(row: CustomerRow) {
  return {
    email: `${digest(row.email.toLowerCase())}@anonymized.invalid`,
    email_verified: false,
    name: row.name !== null && row.tax_id === null ? digest(row.name) : row.name,
    billing_name: row.billing_name === null ? null : digest(row.billing_name),
    billing_address: null,
  };
}

/**
 * Soft-deletes a locked, live customer in the caller's transaction: `deleted_at` set, the external
 * ID moved into the metadata (so a new customer may take it, and the email, at once), every member
 * deleted, and `customer.deleted` recorded with the external ID still shown.
 */
export async function retireCustomer(trx: Executor, row: CustomerRow, options: { anonymize: boolean; now: Date }): Promise<void> {
  const { now } = options;
  const metadata: Metadata = {
    ...row.metadata,
    ...(row.external_id !== null ? { [EXTERNAL_ID_KEY]: row.external_id } : {}),
    ...(options.anonymize ? { [ANONYMIZED_AT_KEY]: now.toISOString() } : {}),
  };
  const deleted = await updateCustomer(trx, row.id, {
    deleted_at: now,
    modified_at: now,
    external_id: null,
    metadata: JSON.stringify(metadata),
    ...(options.anonymize ? anonymized(row) : {}),
  });
  await deleteMembersOfCustomer(trx, row.id, now);
  const customer = { ...toCustomer(deleted), external_id: row.external_id };
  // No customer.state_changed: a deleted customer has no state left to report (customer-state.service.ts).
  await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "customer.deleted", data: customer, now });
}
