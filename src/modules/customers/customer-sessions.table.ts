import type { Generated, Selectable } from "kysely";

export interface CustomerSessionsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  /** HMAC of the token under the server secret; the token itself is never stored. */
  token_hash: string;
  expires_at: Date;
  return_url: string | null;
}
export type CustomerSessionRow = Selectable<CustomerSessionsTable>;
