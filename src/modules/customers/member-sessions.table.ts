import type { Generated, Selectable } from "kysely";

/** A portal session opened for one member; the member's customer is kept for the portal's scoping. */
export interface MemberSessionsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  member_id: string;
  /** HMAC of the raw token: the token itself is shown once and never stored. */
  token_hash: string;
  expires_at: Date;
  return_url: string | null;
}
export type MemberSessionRow = Selectable<MemberSessionsTable>;
