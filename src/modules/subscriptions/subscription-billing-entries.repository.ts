import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { SubscriptionBillingEntriesTable } from "./subscriptions.table.ts";

// The credits and debits of mid-period changes, waiting for the order that bills them.

export const insertBillingEntries = async (db: Executor, values: Insertable<SubscriptionBillingEntriesTable>[]): Promise<void> => {
  if (values.length) await db.insertInto("subscription_billing_entries").values(values).execute();
};

/** The entries no order has billed yet, oldest first (the subscription's lock guards them). */
export const unbilledEntries = (db: Executor, subscriptionId: string) =>
  db
    .selectFrom("subscription_billing_entries")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .where("order_id", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();

/**
 * Marks entries as billed by an order. A split entry keeps the part the order billed and leaves
 * its rest waiting as a new entry with the same price and label.
 */
export async function markEntriesBilled(
  db: Executor,
  orderId: string,
  ids: readonly string[],
  split: { id: string; billed: number; carried: number } | null,
): Promise<void> {
  if (split) {
    const entry = await db
      .updateTable("subscription_billing_entries")
      .set({ amount: split.billed })
      .where("id", "=", split.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await insertBillingEntries(db, [
      {
        created_at: entry.created_at,
        organization_id: entry.organization_id,
        subscription_id: entry.subscription_id,
        product_price_id: entry.product_price_id,
        label: entry.label,
        amount: split.carried,
        order_id: null,
      },
    ]);
  }
  if (ids.length) await db.updateTable("subscription_billing_entries").set({ order_id: orderId }).where("id", "in", ids).execute();
}
