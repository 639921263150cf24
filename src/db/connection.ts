import { Kysely, sql } from "kysely";
import pg from "pg";
import { markingPostgresDialect } from "./commit-marks.ts";
import { acceptCopyFrom } from "./copy-from.ts";
import type { Database, Executor } from "./database.ts";

// int8 columns hold money in minor units and counters; they stay far below 2^53, so read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface Connection {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * `connectTimeoutMs`: how long a query waits for a connection, whether the pool is opening one or
 * all are busy, before failing (answered 503 by the HTTP layer); 0 (tools, tests) waits forever.
 * The server passes DATABASE_CONNECT_TIMEOUT_MS.
 */
export function connect(url: string, poolSize = 10, connectTimeoutMs = 0): Connection {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    // A database that vanished without closing its sockets is noticed by the kernel, not after hours.
    keepAlive: true,
    // Sent with the connection's start-up packet, so no statement is queued ahead of the first
    // query. These are short OLTP statements: where a plan's cost estimate crosses jit_above_cost,
    // compiling it takes longer than running it (a sort by customer name: 192 ms with JIT, 34 ms
    // without, bench/orders-list.md).
    // plan_cache_mode: the plans PostgreSQL caches per session — foreign-key checks, the job queue's
    // and the metrics' PL/pgSQL functions — are planned again for each call instead of kept
    // generic. A generic plan made while a table was small (a fresh database: orders, jobs) scans
    // it whole, and stays until an ANALYZE of that table; without one, every renewal of a 10,000
    // subscription sweep read every order and job written before it (bench/README.md, renewals).
    options: "-c jit=off -c plan_cache_mode=force_custom_plan",
  });
  // An idle client losing its server must not crash the process; the next checkout reconnects.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    acceptCopyFrom(client);
  });
  const db = new Kysely<Database>({ dialect: markingPostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}

/** Whether the database answers a query at all (the readiness probe); throws when it does not. */
export async function ping(db: Executor): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
