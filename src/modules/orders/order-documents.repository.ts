import type { Executor } from "../../db/database.ts";

/**
 * Records the first receipt request of an order. The guard makes concurrent requests race on one
 * row: exactly one of them sees `true` and enqueues the render.
 */
export async function markReceiptRequested(db: Executor, orderId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("orders")
    .set({ receipt_requested_at: now })
    .where("id", "=", orderId)
    .where("receipt_requested_at", "is", null)
    .where("receipt_path", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export const organizationForDocument = (db: Executor, id: string) =>
  db.selectFrom("organizations").select(["id", "name", "email", "website"]).where("id", "=", id).executeTakeFirstOrThrow();
