import type { Executor } from "../../db/database.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { writeOrder, type NewOrder } from "./order-creation.ts";
import { readOrder } from "./orders.service.ts";
import type { OrderRow } from "./orders.table.ts";

// The order operations other modules and flows run inside their own transaction.

export { writeOrder, type NewOrder };

/** Records `order.created` then `order.paid` for an order written paid, in the caller's transaction. */
export async function publishPaidOrder(db: Executor, row: OrderRow, now: Date): Promise<void> {
  const order = await readOrder(db, row);
  await recordWebhookEvent(db, { organizationId: row.organization_id, type: "order.created", data: order, now });
  await recordWebhookEvent(db, { organizationId: row.organization_id, type: "order.paid", data: order, now });
}
