import type { Generated, Selectable } from "kysely";

/** A pending change of a customer's email: see migrations/2026-11-30T0140_customer_email_updates.ts. */
export interface CustomerEmailUpdatesTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  organization_id: string;
  customer_id: string;
  /** The new address, where the token was sent. */
  email: string;
  /** HMAC of the token: the token itself is only in the email. */
  token_hash: string;
  expires_at: Date;
}
export type CustomerEmailUpdateRow = Selectable<CustomerEmailUpdatesTable>;
