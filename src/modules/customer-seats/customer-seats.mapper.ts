import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { toMember } from "../customers/members.mapper.ts";
import type { MemberRow } from "../customers/members.table.ts";
import type { CustomerSeat } from "./customer-seats.schemas.ts";
import type { CustomerSeatRow } from "./customer-seats.table.ts";

/** A seat on the wire, with its member when it has one; `customer_email` is the address the seat was given to. */
export const toCustomerSeat = (row: CustomerSeatRow, member: MemberRow | undefined): CustomerSeat => ({
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  id: row.id,
  subscription_id: row.subscription_id,
  order_id: row.order_id,
  status: row.status,
  customer_id: row.customer_id,
  member_id: row.member_id,
  member: member ? toMember(member) : null,
  email: row.email,
  customer_email: row.email,
  invitation_token_expires_at: toIsoOrNull(row.invitation_token_expires_at),
  claimed_at: toIsoOrNull(row.claimed_at),
  revoked_at: toIsoOrNull(row.revoked_at),
  seat_metadata: row.seat_metadata,
});
