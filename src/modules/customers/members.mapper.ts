import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { Member } from "./members.schemas.ts";
import type { MemberRow } from "./members.table.ts";

export const toMember = (row: MemberRow): Member => ({
  id: row.id,
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  customer_id: row.customer_id,
  email: row.email,
  name: row.name,
  external_id: row.external_id,
  role: row.role,
});
