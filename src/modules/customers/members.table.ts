import type { Generated, Selectable } from "kysely";
import type { MemberRole } from "../../http/auth.ts";

export interface MembersTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  email: string;
  name: string | null;
  /** Unique among the customer's live members, not across the organization. */
  external_id: string | null;
  role: MemberRole;
  deleted_at: Date | null;
}
export type MemberRow = Selectable<MembersTable>;
