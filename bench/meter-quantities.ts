/**
 * Meter quantities against event volume: one customer's usage over 30 days by day, answered for an
 * organization with 10,000,000 events and for one with 100,000, side by side in one run.
 *
 *   npm run bench:meter-quantities                         # embedded PostgreSQL
 *   DATABASE_URL=postgres://… npm run bench:meter-quantities
 *   BENCH_EVENTS=1000000 BENCH_REQUESTS=200 npm run bench:meter-quantities
 *
 * Seeds both organizations with COPY (45 days of events for 100 and 10 customers, so that in both
 * every customer is active in every hour: a customer's buckets are as many in both, and only the
 * number of events differs), creates a `sum` meter in each (after the events: the back-fill job
 * builds its buckets, timed), then alternates the two requests and reports p50/p95 and their ratio.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { sql } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { compactAllMeterBucketDeltas } from "../src/modules/meters/meters.tasks.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";
import { copyFromText } from "../src/db/copy-from.ts";
import { percentile } from "./statistics.ts";

const LARGE = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const SMALL = Number(process.env.BENCH_SMALL_EVENTS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const DAYS = 45;
const START = Date.UTC(2026, 5, 1);
const COPY_ROWS = 20_000;
const COPY_CONNECTIONS = 2;

setTimeout(
  () => {
    console.error("bench exceeded its time budget");
    process.exit(2);
  },
  60 * 60 * 1000,
).unref();

const database = await benchDatabase("bench-meters");
const connection = connect(database.url, 10);

/** `count` events spread evenly over DAYS days and `customers` customers, copied in parallel slices. */
async function seed(organizationId: string, count: number, customers: number): Promise<number> {
  const started = performance.now();
  const step = (DAYS * 86_400_000) / count;
  let next = 0;
  await Promise.all(
    Array.from({ length: COPY_CONNECTIONS }, async () => {
      const client = await connection.pool.connect();
      try {
        while (next < count) {
          const from = next;
          next += COPY_ROWS;
          let text = "";
          for (let i = from; i < Math.min(from + COPY_ROWS, count); i += 1) {
            const timestamp = new Date(START + Math.floor(i * step)).toISOString();
            text += `${organizationId}\tcust_${i % customers}\tllm\t${timestamp}\t{"tokens":${(i * 7919) % 1000}}\n`;
          }
          await copyFromText(client, `COPY events (organization_id, external_customer_id, name, "timestamp", metadata) FROM STDIN`, text);
        }
      } finally {
        client.release();
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

try {
  await migrateToLatest(connection.db, connection.pool);
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent" });
  const deps = { db: connection.db, readDb: connection.db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const services = buildServices(deps);
  const organizations = createOrganizationService(deps);
  const large = await organizations.create({ name: "Large", slug: `large-${database.name}` });
  const small = await organizations.create({ name: "Small", slug: `small-${database.name}` });
  const seconds = { large: await seed(large.id, LARGE, 100), small: await seed(small.id, SMALL, 10) };
  console.log(
    `seeded ${LARGE.toLocaleString("en-US")} events in ${seconds.large.toFixed(1)} s, ${SMALL.toLocaleString("en-US")} in ${seconds.small.toFixed(1)} s`,
  );

  const token = async (organizationId: string) =>
    (
      await createAccessTokenService(deps).createOrganizationToken({
        organization_id: organizationId,
        comment: "bench",
        scopes: ["meters:write"],
        expires_in: null,
      })
    ).token;
  const meter = async (organizationId: string) => {
    const created = await services.meters.create(
      { kind: "organization", tokenId: "bench", organizationId, scopes: new Set(["meters:write"]) },
      {
        name: "Tokens",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "llm" }] },
        aggregation: { func: "sum", property: "tokens" },
      },
    );
    const started = performance.now();
    await services.meters.backfill({ meter_id: created.id, generation: 0 });
    return { id: created.id, backfillSeconds: (performance.now() - started) / 1000 };
  };
  const targets = {
    large: { ...(await meter(large.id)), token: await token(large.id) },
    small: { ...(await meter(small.id)), token: await token(small.id) },
  };
  // The worker moves the back-fill's deltas into the buckets within a minute: measure that steady state.
  await compactAllMeterBucketDeltas(connection.db);
  await sql`ANALYZE`.execute(connection.db);
  console.log(`back-fill: ${targets.large.backfillSeconds.toFixed(1)} s (large), ${targets.small.backfillSeconds.toFixed(1)} s (small)`);

  const app = await buildApp(deps, { logger: false, services });
  await app.ready();
  const url = (id: string, customer: number) =>
    `/v1/meters/${id}/quantities?start_timestamp=2026-06-05T00:00:00Z&end_timestamp=2026-07-04T00:00:00Z&interval=day&external_customer_id=cust_${customer}`;
  const timeOne = async (which: "large" | "small", i: number) => {
    const target = targets[which];
    const started = performance.now();
    const response = await app.inject({ method: "GET", url: url(target.id, i % 10), headers: { authorization: `Bearer ${target.token}` } });
    const ms = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${which}: ${response.statusCode} ${response.body}`);
    return { ms, total: response.json<{ total: number }>().total };
  };
  for (let i = 0; i < 20; i += 1) {
    await timeOne("large", i);
    await timeOne("small", i);
  }
  const times = { large: [] as number[], small: [] as number[] };
  for (let i = 0; i < REQUESTS; i += 1) {
    // Alternate which goes first, so drift in the machine's load weighs on both alike.
    for (const which of i % 2 === 0 ? (["large", "small"] as const) : (["small", "large"] as const))
      times[which].push((await timeOne(which, i)).ms);
  }
  const p95 = { large: percentile(times.large, 95), small: percentile(times.small, 95) };
  const buckets = await sql<{ meter_id: string; n: string }>`SELECT meter_id, count(*) AS n FROM meter_buckets GROUP BY meter_id`.execute(
    connection.db,
  );
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" / ")}`,
  );
  console.log(`buckets per meter: ${buckets.rows.map((r) => `${r.meter_id === targets.large.id ? "large" : "small"} ${r.n}`).join(", ")}`);
  console.log(`${REQUESTS} requests each, one customer, 30 days by day:`);
  for (const which of ["large", "small"] as const) {
    console.log(`  ${which.padEnd(5)} p50 ${percentile(times[which], 50).toFixed(2)} ms   p95 ${p95[which].toFixed(2)} ms`);
  }
  console.log(`p95 ratio large / small: ${(p95.large / p95.small).toFixed(2)} (target ≤ 1.5)`);
  await app.close();
} finally {
  await connection.db.destroy();
  await database.stop();
}
