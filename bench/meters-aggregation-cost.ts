/**
 * What the meters' upkeep costs the database per 1,000 events, for the three meters of
 * `bench/events-ingest.ts meters` (a count, a sum and a unique, each matching every event): a
 * deterministic measure where timings are not, the CPU time of the PostgreSQL backend that runs the
 * aggregation and the compaction (`/proc/<pid>/stat`, so PostgreSQL must run on this machine).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:meters-aggregation-cost
 *   BENCH_ROUNDS=40 BENCH_BATCHES=10 …                     # rounds, and 1,000-event batches per round
 *
 * Each round COPYs `BENCH_BATCHES` batches of the ingest bench's rows (same hour, 100 customers),
 * then runs one aggregation and one compaction, as the worker's chain does every 2 s.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import os from "node:os";
import { sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { copyFromText } from "../src/db/copy-from.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { compactAllMeterBucketDeltas } from "../src/modules/meters/meters.tasks.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const BATCH = 1_000;

const database = await benchDatabase("bench-meters-cost");
// One connection: every statement of the upkeep runs in the backend whose CPU is read.
const connection = connect(database.url, 1);

/** User plus system CPU of the backend, in milliseconds (clock ticks of 10 ms). */
async function backendCpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

try {
  await migrateToLatest(connection.db, connection.pool);
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent" });
  const deps = { db: connection.db, readDb: connection.db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const services = buildServices(deps);
  const organization = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${database.name}` });
  const principal = { kind: "organization" as const, tokenId: "bench", organizationId: organization.id, scopes: new Set(["meters:write"]) };
  const filter = { conjunction: "and" as const, clauses: [{ property: "name", operator: "eq" as const, value: "api.call" }] };
  for (const aggregation of [
    { func: "count" as const },
    { func: "sum" as const, property: "tokens" },
    { func: "unique" as const, property: "route" },
  ])
    await services.meters.create(principal, { name: `Bench ${aggregation.func}`, filter, aggregation });
  const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(connection.db);
  const pid = rows[0]!.pid;

  let seq = 0;
  const totals = { aggregate: 0, compact: 0, events: 0 };
  for (let round = 0; round < ROUNDS; round += 1) {
    const timestamp = new Date().toISOString();
    const client = await connection.pool.connect();
    try {
      for (let b = 0; b < BATCHES; b += 1, seq += 1) {
        let text = "";
        for (let i = 0; i < BATCH; i += 1)
          text += `${organization.id}\tcust_${i % 100}\tapi.call\t${timestamp}\tc-${seq}-${i}\t{"route":"/v1/things","tokens":${(seq * BATCH + i) % 977},"ok":true}\n`;
        await copyFromText(
          client,
          `COPY events (organization_id, external_customer_id, name, "timestamp", external_id, metadata) FROM STDIN`,
          text,
        );
      }
    } finally {
      client.release();
    }
    const t0 = await backendCpuMs(pid);
    await services.meters.aggregateAllIngested();
    const t1 = await backendCpuMs(pid);
    await compactAllMeterBucketDeltas(connection.db);
    const t2 = await backendCpuMs(pid);
    // The first round pays the plans and caches once; the steady state is what the load sees.
    if (round === 0) continue;
    totals.aggregate += t1 - t0;
    totals.compact += t2 - t1;
    totals.events += BATCHES * BATCH;
  }
  const per1000 = (ms: number) => ((ms * BATCH) / totals.events).toFixed(2);
  console.log(
    `${totals.events.toLocaleString("en-US")} events in rounds of ${BATCHES * BATCH}; backend CPU per 1,000 events: aggregation ${per1000(totals.aggregate)} ms, compaction ${per1000(totals.compact)} ms, total ${per1000(totals.aggregate + totals.compact)} ms (load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" / ")})`,
  );
} finally {
  await connection.db.destroy();
  await database.stop();
}
