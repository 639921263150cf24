/**
 * What the benches' floors share: bare `pg` statements that write copies of rows the app wrote (the
 * same payload, email and order sizes), with the keys a new row changes, in plain transactions.
 */
import type pg from "pg";

export type Row = Record<string, unknown>;
type Queryable = pg.Pool | pg.PoolClient;

/** Columns a copy writes: all but the key the database makes and generated ones. */
export async function writableColumns(db: Queryable, table: string): Promise<string[]> {
  const { rows } = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND column_name <> 'id' AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

/** The first row `query` finds; throws when there is none (the app's warm-up wrote nothing of the kind). */
export async function sampleRow(db: Queryable, query: string, values: unknown[]): Promise<Row> {
  const { rows } = await db.query<Row>(query, values);
  if (!rows[0]) throw new Error(`no sample for ${query}`);
  return rows[0];
}

/** `INSERT INTO table (columns) VALUES (…)` of `sample` with `overrides`, returning `returning`. */
export function insertLike(client: pg.PoolClient, table: string, columns: string[], sample: Row, overrides: Row, returning = "id") {
  const values = columns.map((column) => {
    const value = column in overrides ? overrides[column] : sample[column];
    // jsonb columns come back parsed: send them as JSON text again.
    return value !== null && typeof value === "object" && !(value instanceof Date) && !Array.isArray(value) ? JSON.stringify(value) : value;
  });
  const placeholders = columns.map((_, i) => `$${i + 1}`).join(", ");
  return client.query<Row>(
    `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${placeholders}) RETURNING ${returning}`,
    values,
  );
}

/** A webhook event copied from `sample` and its fan-out job, in one statement, as the app's outbox writes them. */
export const insertEventLike = (client: pg.PoolClient, sample: Row) =>
  client.query(
    `WITH event AS (INSERT INTO webhook_events (organization_id, type, payload, created_at) VALUES ($1, $2, $3, now()) RETURNING id)
     SELECT graphile_worker.add_job(identifier => 'webhooks.fanout', payload => json_build_object('eventId', id)) FROM event`,
    [sample.organization_id, sample.type, JSON.stringify(sample.payload)],
  );

export const addJob = (client: pg.PoolClient, identifier: string, payload: object, jobKey: string | null = null) =>
  client.query(`SELECT graphile_worker.add_job(identifier => $1, payload => $2::json, job_key => $3)`, [
    identifier,
    JSON.stringify(payload),
    jobKey,
  ]);

export async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await work(client);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

/** Runs `one` for each item, `concurrency` at a time; answers the items per second. */
export async function perSecond<T>(items: readonly T[], concurrency: number, one: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await one(items[next++]!);
    }),
  );
  return (items.length / (performance.now() - started)) * 1000;
}
