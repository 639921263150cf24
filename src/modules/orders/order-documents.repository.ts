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
  db
    .selectFrom("organizations as o")
    // The logo fetched from the avatar URL, only while the avatar URL is still the one it came from.
    .leftJoin("organization_logos as l", (join) => join.onRef("l.organization_id", "=", "o.id").onRef("l.source_url", "=", "o.avatar_url"))
    .select(["o.id", "o.name", "o.email", "o.website", "o.avatar_url", "o.legal_name", "o.legal_address", "o.tax_registrations"])
    .select("l.content as fetched_logo")
    .where("o.id", "=", id)
    .executeTakeFirstOrThrow();

/**
 * What an order's documents need beyond the order: the checkout it came from (a renewal's is its
 * subscription's) for the buyer's locale and business flag, the customer's locale as the fallback,
 * and when the order was paid (its last succeeded payment).
 */
export const orderDocumentContext = (db: Executor, orderId: string) =>
  db
    .selectFrom("orders as o")
    .innerJoin("customers as cu", "cu.id", "o.customer_id")
    .leftJoin("subscriptions as s", "s.id", "o.subscription_id")
    .leftJoin("checkouts as ch", (join) => join.on((eb) => eb("ch.id", "=", eb.fn.coalesce("o.checkout_id", "s.checkout_id"))))
    .select((eb) => [
      "ch.locale as checkout_locale",
      "ch.is_business_customer",
      "cu.locale as customer_locale",
      eb
        .selectFrom("payments as p")
        .select((sub) => sub.fn.max("p.created_at").as("paid_at"))
        .whereRef("p.order_id", "=", "o.id")
        .where("p.status", "=", "succeeded")
        .as("paid_at"),
    ])
    .where("o.id", "=", orderId)
    .executeTakeFirstOrThrow();
