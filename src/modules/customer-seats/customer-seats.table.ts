import type { ColumnType, Generated, Selectable } from "kysely";

export type SeatStatus = "pending" | "claimed" | "revoked";

export interface CustomerSeatsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  /** Exactly one of the two: the seat-based subscription or one-time order the seat belongs to. */
  subscription_id: string | null;
  order_id: string | null;
  status: SeatStatus;
  /** The billing customer (the buyer), whose member holds the seat; cleared when revoked. */
  customer_id: string | null;
  member_id: string | null;
  email: string | null;
  /** The keyed hash of the pending invitation's token: the token itself is only ever emailed. */
  invitation_token_hash: string | null;
  invitation_token_expires_at: Date | null;
  claimed_at: Date | null;
  revoked_at: Date | null;
  seat_metadata: ColumnType<Record<string, unknown> | null, string | null, string | null>;
}
export type CustomerSeatRow = Selectable<CustomerSeatsTable>;
