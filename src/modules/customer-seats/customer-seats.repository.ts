import { expressionBuilder, sql, type Expression, type Insertable, type RawBuilder, type Updateable } from "kysely";
import type { Database } from "../../db/database.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { countRows } from "../../db/count-rows.ts";
import { orderIdsOfProduct } from "../orders/orders.steps.ts";
import { seatDependentReads } from "./seat-dependent-reads.ts";
import type { CustomerSeatRow, CustomerSeatsTable } from "./customer-seats.table.ts";

/** What seats belong to: a seat-based subscription or a one-time seat order. */
export type SeatContainer = { kind: "subscription" | "order"; id: string };

const column = (container: SeatContainer) => (container.kind === "subscription" ? "subscription_id" : "order_id");

const ofContainer = (db: Executor, container: SeatContainer) =>
  db.selectFrom("customer_seats").selectAll().where(column(container), "=", container.id);

export const insertSeat = (db: Executor, values: Insertable<CustomerSeatsTable>): Promise<CustomerSeatRow> =>
  db.insertInto("customer_seats").values(values).returningAll().executeTakeFirstOrThrow();

export const updateSeat = (db: Executor, id: string, values: Updateable<CustomerSeatsTable>): Promise<CustomerSeatRow> =>
  db.updateTable("customer_seats").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/** Pending and claimed seats: those that take one of the container's seats. */
export const countLiveSeats = (db: Executor, container: SeatContainer): Promise<number> =>
  countRows(ofContainer(db, container).where("status", "<>", "revoked"));

/** The member's live seat of the container, if any (one at most: a unique index says so). */
export const findLiveSeatOfMember = (db: Executor, container: SeatContainer, memberId: string) =>
  ofContainer(db, container).where("status", "<>", "revoked").where("member_id", "=", memberId).executeTakeFirst();

/** The oldest revoked row of the container, which the next assignment takes over (the same seat id, as the hosted service reuses it). */
export const findReusableSeatForUpdate = (db: Executor, container: SeatContainer) =>
  ofContainer(db, container)
    .where("status", "=", "revoked")
    .orderBy("created_at")
    .orderBy("id")
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();

/** Every seat of the container, oldest first. */
export const listSeats = (db: Executor, container: SeatContainer): Promise<CustomerSeatRow[]> =>
  ofContainer(db, container).orderBy("created_at").orderBy("id").execute();

const visible = (db: Executor, allowed: OrganizationScope) => {
  const query = db.selectFrom("customer_seats").selectAll();
  return allowed === null ? query : query.where("organization_id", "in", allowed);
};

export const findSeatForUpdate = (db: Executor, id: string, allowed: OrganizationScope) =>
  visible(db, allowed).where("id", "=", id).forUpdate().executeTakeFirst();

/** The pending seat of an invitation token's hash; expiry is the caller's to judge. */
export const findSeatByTokenHash = (db: Executor, tokenHash: string) =>
  db
    .selectFrom("customer_seats")
    .selectAll()
    .where("invitation_token_hash", "=", tokenHash)
    .where("status", "=", "pending")
    .executeTakeFirst();

export const findSeatByTokenHashForUpdate = (db: Executor, tokenHash: string) =>
  db
    .selectFrom("customer_seats")
    .selectAll()
    .where("invitation_token_hash", "=", tokenHash)
    .where("status", "=", "pending")
    .forUpdate()
    .executeTakeFirst();

/**
 * Seats locked for a change to them all, in id order (so two such changes take turns): the live
 * (pending and claimed) ones of a subscription that left active, of a deleted member or of a deleted
 * billing customer, or the
 * claimed ones whose grants follow their product's benefits.
 */
export const seatsForUpdate = (
  db: Executor,
  of: { subscriptionId: string } | { memberId: string } | { customerId: string } | { productId: string },
  status: "live" | "claimed",
): Promise<CustomerSeatRow[]> => {
  let query = db.selectFrom("customer_seats").selectAll();
  if ("subscriptionId" in of) query = query.where("subscription_id", "=", of.subscriptionId);
  else if ("memberId" in of) query = query.where("member_id", "=", of.memberId);
  else if ("customerId" in of) query = query.where("customer_id", "=", of.customerId);
  else {
    const { subscriptionIdsOfProduct } = seatDependentReads();
    const productId = of.productId;
    query = query.where((eb) =>
      eb.or([eb("subscription_id", "in", subscriptionIdsOfProduct(productId)), eb("order_id", "in", orderIdsOfProduct(productId))]),
    );
  }
  query = status === "live" ? query.where("status", "<>", "revoked") : query.where("status", "=", "claimed");
  return query.orderBy("id").forUpdate().execute();
};

/** The subscriptions in which a member holds a claimed seat. */
export const claimedSubscriptionIdsOfMember = async (db: Executor, memberId: string): Promise<string[]> =>
  (
    await db
      .selectFrom("customer_seats")
      .select("subscription_id")
      .where("member_id", "=", memberId)
      .where("status", "=", "claimed")
      .where("subscription_id", "is not", null)
      .execute()
  ).flatMap((row) => (row.subscription_id ? [row.subscription_id] : []));

/** The seats of a subscription, a subquery for the grants its holders hold through it. */
export const seatIdsOfSubscription = (subscriptionId: string): Expression<string> =>
  expressionBuilder<Database>()
    .selectFrom("customer_seats as cs")
    .select("cs.id")
    .where("cs.subscription_id", "=", subscriptionId)
    .$asScalar();

/** The subscription of the seat of the caller's `seatId` column (null for an order's seat, or no seat). */
export const subscriptionIdOfSeat = (seatId: Expression<string | null>): RawBuilder<string | null> =>
  sql<string | null>`(SELECT cs.subscription_id FROM customer_seats cs WHERE cs.id = ${seatId})`;
