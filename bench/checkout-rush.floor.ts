/**
 * The checkout rush's floor: per buyer, the rows a sandbox confirm writes, as bare statements with
 * no reads beyond what the statements themselves do, in the confirm's two transactions (the
 * confirmation, committed before the charge; then the completion). The rows' contents are copies of
 * rows the app wrote in its warm-up (the same payload, email and order sizes), with the keys a new
 * buyer changes.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { addJob, inTransaction, insertEventLike, insertLike, perSecond, sampleRow, writableColumns, type Row } from "./floor-rows.ts";

export interface FloorIds {
  organizationId: string;
  productId: string;
  priceId: string;
  benefitId: string;
}

/** A row the app wrote, per table: what the floor's inserts copy. */
interface Samples {
  checkout: Row;
  customer: Row;
  order: Row;
  item: Row;
  payment: Row;
  licenseKey: Row;
  grant: Row;
  email: Row;
  session: Row;
  webhookEvents: Row[];
}

const TABLES_BY_SAMPLE = {
  customer: "customers",
  order: "orders",
  item: "order_items",
  payment: "payments",
  licenseKey: "license_keys",
  grant: "benefit_grants",
  email: "emails",
  session: "customer_sessions",
} as const;

/** One completed confirm's rows, read once (the app's warm-up wrote them). */
async function readSamples(pool: pg.Pool, ids: FloorIds): Promise<Samples> {
  const one = (query: string, values: unknown[]) => sampleRow(pool, query, values);
  const order = await one(`SELECT * FROM orders WHERE organization_id = $1 AND checkout_id IS NOT NULL LIMIT 1`, [ids.organizationId]);
  const byOrder = (table: string) => one(`SELECT * FROM ${table} WHERE order_id = $1 LIMIT 1`, [order.id]);
  const webhookEvents = (
    await pool.query<Row>(`SELECT * FROM webhook_events WHERE organization_id = $1 ORDER BY created_at LIMIT 5`, [ids.organizationId])
  ).rows;
  return {
    checkout: await one(`SELECT * FROM checkouts WHERE id = $1`, [order.checkout_id]),
    customer: await one(`SELECT * FROM customers WHERE id = $1`, [order.customer_id]),
    order,
    item: await byOrder("order_items"),
    payment: await byOrder("payments"),
    grant: await byOrder("benefit_grants"),
    licenseKey: await one(`SELECT * FROM license_keys WHERE customer_id = $1`, [order.customer_id]),
    email: await one(`SELECT * FROM emails WHERE organization_id = $1 LIMIT 1`, [ids.organizationId]),
    session: await one(`SELECT * FROM customer_sessions WHERE customer_id = $1`, [order.customer_id]),
    webhookEvents,
  };
}

/**
 * Returns the floor: `count` buyers' writes, `concurrency` at a time over `pool`, and their rate per
 * second. The sessions each buyer confirms are copies of the sample's, made before the clock starts.
 */
export async function prepareRushFloor(pool: pg.Pool, ids: FloorIds) {
  const samples = await readSamples(pool, ids);
  const columns: Record<string, string[]> = {};
  for (const table of [...Object.values(TABLES_BY_SAMPLE), "checkouts"]) columns[table] = await writableColumns(pool, table);
  // The app's outbox writes an event and its fan-out job in one statement: so does the floor.
  const event = (client: pg.PoolClient, i: number) => insertEventLike(client, samples.webhookEvents[i % samples.webhookEvents.length]!);

  async function buyer(checkoutId: string): Promise<void> {
    const now = new Date();
    const settleKey = `checkout.settle:${checkoutId}`;
    // The confirmation: the buyer's edit, the status, the recovery job, the event.
    await inTransaction(pool, async (client) => {
      await client.query(`UPDATE checkouts SET modified_at = $2 WHERE id = $1`, [checkoutId, now]);
      await client.query(`UPDATE checkouts SET status = 'confirmed', modified_at = $2 WHERE id = $1`, [checkoutId, now]);
      await addJob(client, "checkout.settle", { checkoutId, confirmationToken: "tok_visa" }, settleKey);
      await event(client, 0);
    });
    // The completion: customer, order and item, payment, grant, outbox rows, the session's end.
    await inTransaction(pool, async (client) => {
      await client.query(`SELECT graphile_worker.remove_job($1)`, [settleKey]);
      const email = `floor-${checkoutId}@bench.example`;
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${ids.organizationId}:email:${email}`]);
      const customerId = String(
        (await insertLike(client, "customers", columns.customers!, samples.customer, { email, created_at: now })).rows[0]!.id,
      );
      for (const kind of ["invoice", "receipt"])
        await client.query(
          `INSERT INTO billing_counters (organization_id, subject_id, kind, value) VALUES ($1, $2, $3, 1)
           ON CONFLICT (subject_id, kind) DO UPDATE SET value = billing_counters.value + 1 RETURNING value`,
          [ids.organizationId, customerId, kind],
        );
      const orderId = String(
        (
          await insertLike(client, "orders", columns.orders!, samples.order, {
            customer_id: customerId,
            checkout_id: checkoutId,
            invoice_number: `FLOOR-${checkoutId}`,
            receipt_number: `FLOOR-${checkoutId}`,
            created_at: now,
          })
        ).rows[0]!.id,
      );
      await insertLike(client, "order_items", columns.order_items!, samples.item, { order_id: orderId, created_at: now });
      await insertLike(client, "payments", columns.payments!, samples.payment, {
        order_id: orderId,
        customer_id: customerId,
        processor_reference: randomUUID(),
      });
      await insertLike(client, "license_keys", columns.license_keys!, samples.licenseKey, {
        customer_id: customerId,
        key: `B-${randomUUID()}`,
      });
      await insertLike(client, "benefit_grants", columns.benefit_grants!, samples.grant, { customer_id: customerId, order_id: orderId });
      await event(client, 1);
      await addJob(client, "customers.state_changed", { customerId }, `customers.state_changed:${customerId}`);
      await insertLike(client, "emails", columns.emails!, samples.email, { dedupe_key: `order_confirmation:${orderId}`, recipient: email });
      await client.query(`UPDATE checkouts SET status = 'succeeded', customer_id = $2, modified_at = $3 WHERE id = $1`, [
        checkoutId,
        customerId,
        now,
      ]);
      await insertLike(client, "customer_sessions", columns.customer_sessions!, samples.session, {
        customer_id: customerId,
        token_hash: randomUUID().replaceAll("-", "").padEnd(64, "0"),
      });
      for (let i = 2; i < 5; i += 1) await event(client, i);
    });
  }

  /** Copies of the sample session, open, one per buyer to come. */
  async function openSessions(count: number): Promise<string[]> {
    const copied = columns.checkouts!.filter((c) => !["client_secret", "status", "customer_id"].includes(c));
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO checkouts (${copied.map((c) => `"${c}"`).join(", ")}, client_secret, status)
       SELECT ${copied.map((c) => `s."${c}"`).join(", ")}, 'floor_' || md5(random()::text || n), 'open'
       FROM checkouts s, generate_series(1, $2) n WHERE s.id = $1 RETURNING id`,
      [String(samples.checkout.id), count],
    );
    return rows.map((r) => r.id);
  }

  return async (count: number, concurrency: number): Promise<{ perSecond: number; fiveHundreds: number; non2xx: number }> => {
    const sessions = await openSessions(count);
    const rate = await perSecond(sessions, concurrency, buyer);
    return { perSecond: rate, fiveHundreds: 0, non2xx: 0 };
  };
}
