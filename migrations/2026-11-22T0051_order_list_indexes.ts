import type { Kysely } from "kysely";

/**
 * Indexes for GET /v1/orders/ at a million orders (bench/orders-list.md has the plans):
 * - order items by order: every page loads its orders' items by `order_id`; the only index led with
 *   `organization_id`, so each page read scanned the whole table;
 * - the default order: the list breaks ties by id in the direction of the last criterion, so
 *   `(organization_id, created_at, id)` read backwards is exactly `-created_at`, without a sort;
 *   it replaces `(organization_id, created_at)`;
 * - a status filter: `(organization_id, status, created_at, net_amount, id)` counts one status
 *   from the index alone and, read backwards, is exactly `-created_at, -amount` within it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("order_items_order_idx").on("order_items").columns(["order_id", "position"]).execute();
  await db.schema.createIndex("orders_org_created_id_idx").on("orders").columns(["organization_id", "created_at", "id"]).execute();
  await db.schema.dropIndex("orders_org_idx").execute();
  await db.schema
    .createIndex("orders_org_status_created_idx")
    .on("orders")
    .columns(["organization_id", "status", "created_at", "net_amount", "id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("orders_org_status_created_idx").execute();
  await db.schema.createIndex("orders_org_idx").on("orders").columns(["organization_id", "created_at"]).execute();
  await db.schema.dropIndex("orders_org_created_id_idx").execute();
  await db.schema.dropIndex("order_items_order_idx").execute();
}
