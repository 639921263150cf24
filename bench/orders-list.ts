/**
 * GET /v1/orders/ for one organization of the 1,000,000-order database (bench/orders-seed.ts,
 * seeded first when missing): a filtered two-key sort and the default sort, page 50 of 10, at 16
 * connections, with `total_count`. Latency percentiles come from every response's own time.
 * Then the page-of-10 variants side by side with a bare `node:http` server running the app's own
 * compiled statement through `pg` and writing `JSON.stringify` of the same mapper's output
 * (interleaved rounds, `compareInterleaved`). The servers run in a child process so the load
 * generator does not share their event loop.
 *
 *   node --import tsx bench/orders-list.ts            (BENCH_SECONDS per variant and round, default 10; BENCH_ROUNDS, default 3)
 *   node --import tsx bench/orders-list.ts --explain  (EXPLAIN (ANALYZE, BUFFERS) of the statement each variant runs)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { isDeepStrictEqual } from "node:util";
import { Kysely, PostgresDialect, type CompiledQuery } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect, type Connection } from "../src/db/connection.ts";
import type { Database } from "../src/db/database.ts";
import { toPage } from "../src/schema/pagination.ts";
import { toEmbeddedOrder } from "../src/modules/orders/orders.mapper.ts";
import type { OrderEmbeddedRow } from "../src/modules/orders/orders.repository.ts";
import type { OrderListQuery } from "../src/modules/orders/orders.schemas.ts";
import { createOrderService } from "../src/modules/orders/orders.service.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { announceReady, compareInterleaved, cpuSeconds, withServerProcess } from "./harness.ts";
import { benchOrganizations, openBenchDatabase, seedOrders } from "./orders-seed.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const CONNECTIONS = 16;
// BENCH_CONNECTIONS=1,16 also shows the latency of a lone client, i.e. without queueing.
const CONNECTION_COUNTS = (process.env.BENCH_CONNECTIONS ?? String(CONNECTIONS)).split(",").map(Number);
const POOL_SIZE = 10;
const TARGET_P95_MS = 25;
// The app's share of the bare server's throughput (issue 18).
const FLOOR_PERCENT = 85;
// An organization in the middle of the seed; every one has the same shape.
const ORGANIZATION = 42;

/** The measured requests: query string and the same query as the service receives it. */
const VARIANTS: { label: string; query: string; parsed: OrderListQuery }[] = [
  {
    label: "status=paid, -created_at, -amount",
    query: "status=paid&sorting=-created_at&sorting=-amount&page=50&limit=10",
    parsed: { status: "paid", sorting: ["-created_at", "-amount"], page: 50, limit: 10 },
  },
  { label: "default sort (-created_at)", query: "page=50&limit=10", parsed: { sorting: ["-created_at"], page: 50, limit: 10 } },
  {
    label: "status=paid, -created_at, -amount, limit 100",
    query: "status=paid&sorting=-created_at&sorting=-amount&page=50&limit=100",
    parsed: { status: "paid", sorting: ["-created_at", "-amount"], page: 50, limit: 100 },
  },
];

const deps = (connection: Connection) => ({
  db: connection.db,
  readDb: connection.db,
  config: loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent" }),
  secret: randomBytes(32).toString("hex"),
  now: () => new Date(),
});

async function prepare(): Promise<{ connection: Connection; organizationId: string; stop: () => Promise<void> }> {
  const database = await openBenchDatabase();
  const connection = connect(database.url, POOL_SIZE);
  await seedOrders(connection);
  const organizationId = (await benchOrganizations(connection))[ORGANIZATION]!;
  return { connection, organizationId, stop: async () => (await connection.close(), await database.stop()) };
}

/** The statements the service runs for a variant's query, captured as Kysely compiles them. */
async function statementsOf(connection: Connection, organizationId: string, query: OrderListQuery): Promise<CompiledQuery[]> {
  const captured: CompiledQuery[] = [];
  const spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: connection.pool }),
    log: (event) => void captured.push(event.query),
  });
  // Lists read the replica connection (`readDb`), the same database here.
  await createOrderService({ ...deps(connection), db: spy, readDb: spy }).list(query, [organizationId]);
  // The page with its relations and count, in one statement (a page past the end adds a lone count).
  return captured.filter((q) => /from "order(s|_items)"/.test(q.sql));
}

/** The statements the service runs for each variant, explained. */
async function explain(): Promise<void> {
  const { connection, organizationId, stop } = await prepare();
  for (const variant of VARIANTS) {
    console.log(`## ${variant.label}\n`);
    for (const query of await statementsOf(connection, organizationId, variant.parsed)) {
      const plan = await connection.pool.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, [...query.parameters]);
      console.log(`${query.sql}\n\n${plan.rows.map((row) => row["QUERY PLAN"]).join("\n")}\n`);
    }
  }
  await stop();
}

type Ready = { port: number; bare: number; token: string; pid: number };

/**
 * The bare server: `/?variant=<index>` runs that variant's captured statement (page, relations and
 * count in one) through `pg` on the app's pool, maps the rows with the app's mapper and writes
 * `JSON.stringify` of the page; what a hand-written endpoint on the same schema would do.
 */
async function bareServer(connection: Connection, organizationId: string): Promise<number> {
  const statements: CompiledQuery[] = [];
  for (const variant of VARIANTS) {
    const captured = await statementsOf(connection, organizationId, variant.parsed);
    if (captured.length !== 1) throw new Error(`${variant.label}: ${captured.length} statements, expected one`);
    statements.push(captured[0]!);
  }
  const bare = createServer((request, response) => {
    const index = Number(new URL(request.url ?? "/", "http://bare").searchParams.get("variant"));
    const statement = statements[index];
    const variant = VARIANTS[index];
    if (!statement || !variant) return void response.writeHead(404).end();
    connection.pool
      .query<OrderEmbeddedRow & { total_count: number }>(statement.sql, [...statement.parameters])
      .then((result) => {
        const page = toPage(result.rows.map(toEmbeddedOrder), result.rows[0]?.total_count ?? 0, variant.parsed);
        response.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(page));
      })
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  return (bare.address() as { port: number }).port;
}

/** Child: the app and the bare server on the seeded database, and a token of the measured organization. */
async function serve(): Promise<void> {
  const { connection, organizationId, stop } = await prepare();
  const appDeps = deps(connection);
  const { token } = await createAccessTokenService(appDeps).createOrganizationToken({
    organization_id: organizationId,
    comment: "bench",
    scopes: ["orders:read"],
    expires_in: null,
  });
  const app = await buildApp(appDeps, { logger: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const bare = await bareServer(connection, organizationId);
  const ready: Ready = { port: (app.server.address() as { port: number }).port, bare, token, pid: process.pid };
  announceReady(ready, async () => {
    await app.close();
    await stop();
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/**
 * autocannon's result plus the p95 of every response's own time (autocannon reports no p95) and,
 * given the server's pid, its CPU milliseconds per request.
 */
async function load(url: string, token: string, seconds: number, connections = CONNECTIONS, pid?: number) {
  const times: number[] = [];
  const cpuBefore = pid === undefined ? 0 : cpuSeconds(pid);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } },
      (error: Error | null, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => void times.push(responseTime));
  });
  times.sort((a, b) => a - b);
  const cpuMs = pid === undefined ? Number.NaN : ((cpuSeconds(pid) - cpuBefore) * 1000) / result.requests.total;
  return { ...result, p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), cpuMs };
}

async function measure(url: string, token: string, seconds: number, connections = CONNECTIONS) {
  const result = await load(url, token, seconds, connections);
  return {
    rps: result.requests.average,
    p50: result.p50,
    p95: result.p95,
    p99: result.p99,
    errors: result.errors + result.non2xx,
    bytes: result.throughput.average / result.requests.average,
  };
}

/** The page-of-10 variants, app against bare server, interleaved rounds at 16 connections. */
async function compare(ready: Ready): Promise<void> {
  for (const [index, variant] of VARIANTS.entries()) {
    if (variant.parsed.limit !== 10) continue;
    const appUrl = `http://127.0.0.1:${ready.port}/v1/orders/?${variant.query}`;
    const bareUrl = `http://127.0.0.1:${ready.bare}/?variant=${index}`;
    const headers = { authorization: `Bearer ${ready.token}` };
    const [ours, theirs] = await Promise.all([fetch(appUrl, { headers }), fetch(bareUrl)]);
    // Key order may differ (the app serializes in schema order); the documents must not.
    if (ours.status !== 200 || !isDeepStrictEqual(await ours.json(), await theirs.json()))
      throw new Error(`${variant.label}: the app and the bare server answer different documents`);
    console.log(`\n${variant.label}: app against bare node:http + pg (equal JSON documents)`);
    const rounds = await compareInterleaved(
      { name: "bare", load: (seconds) => load(bareUrl, ready.token, seconds, CONNECTIONS, ready.pid) },
      { name: "app", load: (seconds) => load(appUrl, ready.token, seconds, CONNECTIONS, ready.pid) },
      { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, poolSize: POOL_SIZE, floor: FLOOR_PERCENT },
    );
    const mean = (which: "baseline" | "subject", pick: "p95" | "cpuMs") =>
      rounds.reduce((sum, r) => sum + r[which][pick], 0) / rounds.length;
    console.log(
      `p95 at ${CONNECTIONS} connections (mean of rounds): bare ${mean("baseline", "p95").toFixed(1)} ms, app ${mean("subject", "p95").toFixed(1)} ms`,
    );
    // Throughput swings with the machine's load; the server's own CPU per request does not.
    console.log(
      `server process CPU per request (mean of rounds): bare ${mean("baseline", "cpuMs").toFixed(2)} ms, app ${mean("subject", "cpuMs").toFixed(2)} ms`,
    );
  }
}

async function main(): Promise<void> {
  const compared = VARIANTS.filter((v) => v.parsed.limit === 10).length;
  await withServerProcess<Ready>(
    import.meta.url,
    SECONDS * VARIANTS.length * CONNECTION_COUNTS.length * 2 + compared * (SECONDS * ROUNDS * 2 + 8) + 180,
    async (ready) => {
      console.log(
        `${SECONDS} s per variant and connection count, pool ${POOL_SIZE}, organization #${ORGANIZATION} (10,000 of 1,000,000 orders)`,
      );
      for (const variant of VARIANTS) {
        const url = `http://127.0.0.1:${ready.port}/v1/orders/?${variant.query}`;
        const check = await fetch(url, { headers: { authorization: `Bearer ${ready.token}` } });
        const body = (await check.json()) as { items: unknown[]; pagination: { total_count: number } };
        if (check.status !== 200 || body.items.length !== variant.parsed.limit)
          throw new Error(`${variant.label}: ${check.status}, ${body.items?.length} items`);
        await measure(url, ready.token, 2);
        for (const connections of CONNECTION_COUNTS) {
          const r = await measure(url, ready.token, SECONDS, connections);
          console.log(
            `${variant.label.padEnd(46)} ${String(connections).padStart(2)} conn  total_count ${body.pagination.total_count}  ${r.rps.toFixed(0).padStart(5)} req/s  ` +
              `p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  ${(r.bytes / 1024).toFixed(1)} KiB/response  errors ${r.errors}` +
              (connections === CONNECTIONS ? `  ${r.p95 < TARGET_P95_MS ? "p95 under" : "p95 OVER"} ${TARGET_P95_MS} ms` : ""),
          );
        }
      }
      await compare(ready);
    },
  );
}

if (process.argv.includes("--serve")) await serve();
else if (process.argv.includes("--explain")) await explain();
else await main();
