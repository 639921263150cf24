/**
 * The renewal sweep's floor: per subscription, the rows a sandbox renewal writes (the subscription's
 * new period, the order and its item, the payment, the invoice and receipt counters, the receipt
 * email, the webhook events with their fan-out jobs and the customer-state job) as bare statements,
 * one transaction per renewal, as many at once as the sweep runs. The rows are copies of those the
 * app's warm-up renewals wrote, with the keys a new renewal changes.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { addJob, inTransaction, insertEventLike, insertLike, perSecond, sampleRow, writableColumns, type Row } from "./floor-rows.ts";

/** The events one renewal records, in its order. */
const EVENT_TYPES = ["subscription.cycled", "subscription.updated", "order.created", "order.updated", "order.paid"] as const;

export async function prepareRenewalFloor(pool: pg.Pool, organizationId: string) {
  const order = await sampleRow(pool, `SELECT * FROM orders WHERE organization_id = $1 AND billing_reason = 'subscription_cycle' LIMIT 1`, [
    organizationId,
  ]);
  const samples = {
    order,
    item: await sampleRow(pool, `SELECT * FROM order_items WHERE order_id = $1`, [order.id]),
    payment: await sampleRow(pool, `SELECT * FROM payments WHERE order_id = $1`, [order.id]),
    email: await sampleRow(pool, `SELECT * FROM emails WHERE organization_id = $1 LIMIT 1`, [organizationId]),
  };
  const events: Row[] = [];
  for (const type of EVENT_TYPES)
    events.push(
      await sampleRow(pool, `SELECT * FROM webhook_events WHERE organization_id = $1 AND type = $2 LIMIT 1`, [organizationId, type]),
    );
  const columns = {
    orders: await writableColumns(pool, "orders"),
    order_items: await writableColumns(pool, "order_items"),
    payments: await writableColumns(pool, "payments"),
    emails: await writableColumns(pool, "emails"),
  };
  const counter = (client: pg.PoolClient, customerId: string, kind: string) =>
    client.query(
      `INSERT INTO billing_counters (organization_id, subject_id, kind, value) VALUES ($1, $2, $3, 1)
       ON CONFLICT (subject_id, kind) DO UPDATE SET value = billing_counters.value + 1 RETURNING value`,
      [organizationId, customerId, kind],
    );

  const renew = (subscription: { id: string; customer_id: string }) =>
    inTransaction(pool, async (client) => {
      const now = new Date();
      await client.query(
        `UPDATE subscriptions SET current_period_start = current_period_end, current_period_end = current_period_end + interval '1 month', modified_at = $2
         WHERE id = $1`,
        [subscription.id, now],
      );
      await insertEventLike(client, events[0]!);
      await insertEventLike(client, events[1]!);
      await addJob(
        client,
        "customers.state_changed",
        { customerId: subscription.customer_id },
        `customers.state_changed:${subscription.customer_id}`,
      );
      await counter(client, subscription.customer_id, "invoice");
      const number = `FLOOR-${randomUUID()}`;
      const orderId = String(
        (
          await insertLike(client, "orders", columns.orders, samples.order, {
            customer_id: subscription.customer_id,
            subscription_id: subscription.id,
            invoice_number: number,
            receipt_number: null,
            status: "pending",
            created_at: now,
          })
        ).rows[0]!.id,
      );
      await insertLike(client, "order_items", columns.order_items, samples.item, { order_id: orderId, created_at: now });
      await insertEventLike(client, events[2]!);
      await insertLike(client, "payments", columns.payments, samples.payment, {
        order_id: orderId,
        customer_id: subscription.customer_id,
        processor_reference: randomUUID(),
      });
      await counter(client, subscription.customer_id, "receipt");
      await client.query(`UPDATE orders SET status = 'paid', receipt_number = $2, payment_reference = $3, modified_at = $4 WHERE id = $1`, [
        orderId,
        number,
        randomUUID(),
        now,
      ]);
      await insertEventLike(client, events[3]!);
      await insertEventLike(client, events[4]!);
      await insertLike(client, "emails", columns.emails, samples.email, { dedupe_key: `floor:${orderId}` });
    });

  /** Renews `subscriptions` (not due: the floor only writes their rows), `concurrency` at a time; answers renewals per second. */
  return (subscriptions: { id: string; customer_id: string }[], concurrency: number) => perSecond(subscriptions, concurrency, renew);
}
