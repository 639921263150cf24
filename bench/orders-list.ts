/**
 * GET /v1/orders/ for one organization of the 1,000,000-order database (bench/orders-seed.ts,
 * seeded first when missing): a filtered two-key sort and the default sort, page 50 of 10, at 16
 * connections, with `total_count`. Latency percentiles come from every response's own time.
 * The server runs in a child process so the load generator does not share its event loop.
 *
 *   node --import tsx bench/orders-list.ts            (BENCH_SECONDS per variant, default 10)
 *   node --import tsx bench/orders-list.ts --explain  (EXPLAIN (ANALYZE, BUFFERS) of the statement each variant runs)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { Kysely, PostgresDialect, type CompiledQuery } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect, type Connection } from "../src/db/connection.ts";
import type { Database } from "../src/db/database.ts";
import type { OrderListQuery } from "../src/modules/orders/orders.schemas.ts";
import { createOrderService } from "../src/modules/orders/orders.service.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { announceReady, withServerProcess } from "./harness.ts";
import { benchOrganizations, openBenchDatabase, seedOrders } from "./orders-seed.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const CONNECTIONS = 16;
// BENCH_CONNECTIONS=1,16 also shows the latency of a lone client, i.e. without queueing.
const CONNECTION_COUNTS = (process.env.BENCH_CONNECTIONS ?? String(CONNECTIONS)).split(",").map(Number);
const POOL_SIZE = 10;
const TARGET_P95_MS = 25;
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

/** The statements the service runs for each variant, captured as Kysely compiles them, explained. */
async function explain(): Promise<void> {
  const { connection, organizationId, stop } = await prepare();
  const captured: CompiledQuery[] = [];
  const spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: connection.pool }),
    log: (event) => void captured.push(event.query),
  });
  const service = createOrderService({ ...deps(connection), db: spy });
  for (const variant of VARIANTS) {
    captured.length = 0;
    await service.list(variant.parsed, [organizationId]);
    console.log(`## ${variant.label}\n`);
    // The page with its relations and count, in one statement (a page past the end adds a lone count).
    for (const query of captured.filter((q) => /from "order(s|_items)"/.test(q.sql))) {
      const plan = await connection.pool.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query.sql}`, [...query.parameters]);
      console.log(`${query.sql}\n\n${plan.rows.map((row) => row["QUERY PLAN"]).join("\n")}\n`);
    }
  }
  await stop();
}

/** Child: the app on the seeded database and a token of the measured organization. */
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
  announceReady({ port: (app.server.address() as { port: number }).port, token }, async () => {
    await app.close();
    await stop();
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function measure(url: string, token: string, seconds: number, connections = CONNECTIONS) {
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } },
      (error: Error | null, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => void times.push(responseTime));
  });
  times.sort((a, b) => a - b);
  return {
    rps: result.requests.average,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    errors: result.errors + result.non2xx,
    bytes: result.throughput.average / result.requests.average,
  };
}

async function main(): Promise<void> {
  await withServerProcess<{ port: number; token: string }>(
    import.meta.url,
    SECONDS * VARIANTS.length * CONNECTION_COUNTS.length * 2 + 120,
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
    },
  );
}

if (process.argv.includes("--serve")) await serve();
else if (process.argv.includes("--explain")) await explain();
else await main();
