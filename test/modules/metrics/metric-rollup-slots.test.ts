import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../helpers/database.ts";

// The order rollups' slots (migrations/2026-12-02T0700_metric_order_rollup_slots.ts): two open
// transactions adding to one rollup key each take their own row instead of the second waiting.

let database: TestDatabase;
let organizationId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const { rows } = await sql<{ id: string }>`INSERT INTO organizations (name, slug) VALUES ('Slots', 'slots') RETURNING id`.execute(
    database.db,
  );
  organizationId = rows[0]!.id;
});

afterAll(async () => {
  await database.drop();
});

/** Adds one order of 10.00 (net 9.00) at the key's hour, as the order triggers do. */
const addOrder = (client: { query: (text: string, values: unknown[]) => Promise<unknown> }) =>
  client.query(
    `SELECT metrics_add_order_fact(ROW(gen_random_uuid(), $1, '2026-06-01T10:00:00Z', NULL, 'usd', NULL, NULL, NULL, 1000, 900)::metric_order_facts, 1)`,
    [organizationId],
  );

const rows = () =>
  sql<{ slot: number; orders: string; revenue: string; net: string }>`
    SELECT slot, orders, revenue, net FROM metric_order_rollups WHERE organization_id = ${organizationId} ORDER BY slot`
    .execute(database.db)
    .then((result) =>
      result.rows.map((row) => ({ ...row, orders: Number(row.orders), revenue: Number(row.revenue), net: Number(row.net) })),
    );

describe("order rollup slots", () => {
  it("lets two open transactions add to one key without waiting, and sums to what both added", async () => {
    const first = await database.pool.connect();
    const second = await database.pool.connect();
    try {
      await first.query("BEGIN");
      await addOrder(first);
      await second.query("BEGIN");
      // Without slots the second would wait on the first's row until it commits: here it may not wait at all.
      await second.query("SET LOCAL lock_timeout = '2s'");
      await addOrder(second);
      // A transaction adding again keeps its own slot.
      await addOrder(first);
      await second.query("COMMIT");
      await first.query("COMMIT");
    } finally {
      first.release();
      second.release();
    }
    expect(await rows()).toEqual([
      { slot: 0, orders: 2, revenue: 2000, net: 1800 },
      { slot: 1, orders: 1, revenue: 1000, net: 900 },
    ]);
    // Alone, a write takes the first slot again.
    await addOrder(database.pool);
    expect((await rows())[0]).toEqual({ slot: 0, orders: 3, revenue: 3000, net: 2700 });
  });
});

/** Records one order fact of 10.00 (net 9.00), as the order triggers do: its statement trigger adds the day rows. */
const recordFact = (client: { query: (text: string, values: unknown[]) => Promise<unknown> }) =>
  client.query(
    `INSERT INTO metric_order_facts (order_id, organization_id, hour, currency, revenue, net)
     VALUES (gen_random_uuid(), $1, '2026-06-01T10:00:00Z', 'usd', 1000, 900)`,
    [organizationId],
  );

/** The day rows at UTC (offset 0) per slot; each slot's 27 offsets hold the same sums. */
const dayRows = () =>
  sql<{ slot: number; orders: string; offsets: string }>`
    SELECT slot, sum(orders) FILTER (WHERE utc_offset = 0) AS orders, count(*) AS offsets
    FROM metric_order_day_rollups WHERE organization_id = ${organizationId} GROUP BY slot ORDER BY slot`
    .execute(database.db)
    .then((result) => result.rows.map((row) => ({ slot: row.slot, orders: Number(row.orders), offsets: Number(row.offsets) })));

describe("day rollup slots", () => {
  it("lets two open transactions of one organization record orders without waiting on each other's day rows", async () => {
    const first = await database.pool.connect();
    const second = await database.pool.connect();
    try {
      await first.query("BEGIN");
      await recordFact(first);
      await second.query("BEGIN");
      // Without slots the second would wait on the first's 27 day rows until it commits.
      await second.query("SET LOCAL lock_timeout = '2s'");
      await recordFact(second);
      await recordFact(first);
      await second.query("COMMIT");
      await first.query("COMMIT");
    } finally {
      first.release();
      second.release();
    }
    expect(await dayRows()).toEqual([
      { slot: 0, orders: 2, offsets: 27 },
      { slot: 1, orders: 1, offsets: 27 },
    ]);
  });
});
