import type { Executor } from "../../db/database.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { revokeSeatBenefits, syncSeatBenefits } from "../benefits/benefits.steps.ts";
import type { BenefitJson } from "../benefits/benefits.mapper.ts";
import { membersByIds } from "../customers/customers.steps.ts";
import { findProductWithRelations } from "../products/products.steps.ts";
import { toCustomerSeat } from "./customer-seats.mapper.ts";
export { claimedSubscriptionIdsOfMember, seatIdsOfSubscription, subscriptionIdOfSeat } from "./customer-seats.repository.ts";
export { containerRefOf, type SeatScope } from "./seat-containers.ts";
import { seatsForUpdate, updateSeat } from "./customer-seats.repository.ts";
import type { CustomerSeat } from "./customer-seats.schemas.ts";
import type { CustomerSeatRow } from "./customer-seats.table.ts";

// The seat operations other modules run inside their own transaction.

/** Seats on the wire, their members read in one query. */
export async function seatsJson(db: Executor, rows: readonly CustomerSeatRow[]): Promise<CustomerSeat[]> {
  const ids = [...new Set(rows.flatMap((row) => (row.member_id ? [row.member_id] : [])))];
  const members = new Map((await membersByIds(db, ids)).map((member) => [member.id, member]));
  return rows.map((row) => toCustomerSeat(row, row.member_id ? members.get(row.member_id) : undefined));
}

/** Records a `customer_seat.*` event with the seat as it is now, and returns that seat. */
export async function publishSeat(
  db: Executor,
  row: CustomerSeatRow,
  type: "customer_seat.assigned" | "customer_seat.claimed" | "customer_seat.revoked",
  now: Date,
): Promise<CustomerSeat> {
  const [seat] = await seatsJson(db, [row]);
  await recordWebhookEvent(db, { organizationId: row.organization_id, type, data: seat, now });
  return seat!;
}

/**
 * Revokes a live seat (locked by the caller): its holder's grants go, the row keeps only its
 * container and times (the next assignment reuses it), and `customer_seat.revoked` is recorded.
 */
export async function revokeSeat(db: Executor, row: CustomerSeatRow, now: Date): Promise<CustomerSeatRow> {
  await revokeSeatBenefits(db, row.id, now);
  const revoked = await updateSeat(db, row.id, {
    status: "revoked",
    revoked_at: now,
    modified_at: now,
    invitation_token_hash: null,
    customer_id: null,
    member_id: null,
    email: null,
  });
  await publishSeat(db, revoked, "customer_seat.revoked", now);
  return revoked;
}

/** Revokes the live seats of a subscription, a member or a billing customer; returns how many. */
async function revokeLiveSeats(db: Executor, of: Parameters<typeof seatsForUpdate>[1], now: Date): Promise<number> {
  const seats = await seatsForUpdate(db, of, "live");
  for (const seat of seats) await revokeSeat(db, seat, now);
  return seats.length;
}

/**
 * A subscription left active (ended, paused, past due): every seat of it is revoked for good, as the
 * hosted service does; nothing gives them back when it recovers or resumes (the buyer reassigns them).
 */
export const revokeSubscriptionSeats = (db: Executor, subscriptionId: string, now: Date): Promise<number> =>
  revokeLiveSeats(db, { subscriptionId }, now);

/** A member deleted: every seat they hold or are invited to is revoked, as the hosted service does. */
export const revokeMemberSeats = (db: Executor, memberId: string, now: Date): Promise<number> => revokeLiveSeats(db, { memberId }, now);

/**
 * A billing customer deleted: every seat it bought that is still live is revoked, those of one-time
 * orders included (its subscriptions' went when they were revoked), as a subscription's are.
 */
export const revokeCustomerSeats = (db: Executor, customerId: string, now: Date): Promise<number> =>
  revokeLiveSeats(db, { customerId }, now);

/** A claimed seat (locked by the caller): its holder's grants become the product's benefits as they are now. */
export const syncSeat = (db: Executor, row: CustomerSeatRow, benefits: readonly BenefitJson[], now: Date): Promise<void> =>
  syncSeatBenefits(db, {
    customerId: row.customer_id!,
    seat: { id: row.id, memberId: row.member_id!, subscriptionId: row.subscription_id },
    benefits,
    now,
  });

/** A subscription moved to another product: its claimed seats' holders get the new product's benefits, and lose the others. */
export async function syncSubscriptionSeats(
  db: Executor,
  subscriptionId: string,
  benefits: readonly BenefitJson[],
  now: Date,
): Promise<void> {
  for (const seat of await seatsForUpdate(db, { subscriptionId }, "claimed")) await syncSeat(db, seat, benefits, now);
}

/** A product's benefits changed: the claimed seats of its subscriptions and orders follow them. */
export async function syncProductSeats(db: Executor, productId: string, now: Date): Promise<void> {
  const product = await findProductWithRelations(db, productId, null);
  if (!product) return;
  for (const seat of await seatsForUpdate(db, { productId }, "claimed")) await syncSeat(db, seat, product.benefits, now);
}
