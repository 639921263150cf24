/**
 * Where a batch of `POST /v1/events/ingest` spends its time, stage by stage, on one connection (no
 * concurrency, so each stage's cost is its own): the whole request through the app (`inject`, no
 * socket), then its parts measured alone: the JSON parse, the body's validation (the route's
 * validator on a parsed body), the service's row building
 * (`prepareEvents` of the inserts), the statements as the app sends them (claims and events, each a
 * `COPY`, in a transaction with the ingest lock and the event-type check), the same without the
 * claims table, and `COPY` of the same rows; with the WAL and the CPU time (this process's, the
 * database's) each takes. Batches of 1,000 unique external ids, as
 * the ingest bench sends them; stages interleave batch by batch so the machine's load hits all alike.
 *
 *   node --import tsx bench/events-ingest-profile.ts   (BENCH_BATCHES per stage, default 30)
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import { sql } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { lockIngestShared } from "../src/modules/meters/meters.steps.ts";
import {
  copyEvents,
  insertNewEventTypes,
  prepareEvents,
  type EventInsert,
  type PreparedEvents,
} from "../src/modules/events/events-ingest.repository.ts";
import { createIngestValidator } from "../src/modules/events/events.ingest-validation.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { benchDatabase } from "./bench-database.ts";
import { copyFromText } from "../src/db/copy-from.ts";
import { BATCH_SIZE, buildBatch } from "./events-ingest.client.ts";

const BATCHES = Math.min(Number(process.env.BENCH_BATCHES ?? 30), 500);

type Stage = "request" | "parse" | "validate" | "rows" | "statement" | "statementNoClaims" | "copy";
const noStages = (): Record<Stage, number[]> => ({
  request: [],
  parse: [],
  validate: [],
  rows: [],
  statement: [],
  statementNoClaims: [],
  copy: [],
});
const stages = noStages();
const wal: Partial<Record<Stage, number[]>> = { statement: [], statementNoClaims: [], copy: [] };
// CPU time per stage: this process's (the app, the driver) and the database backends' (read from
// /proc: PostgreSQL runs on this machine). Unlike wall time it hardly moves with the machine's load.
const nodeCpu = noStages();
const databaseCpu = noStages();

const database = await benchDatabase("bench-ingest-profile");
const connection = connect(database.url, 2);
await migrateToLatest(connection.db, connection.pool);
const secret = randomBytes(32).toString("hex");
const deps = {
  db: connection.db,
  readDb: connection.db,
  config: loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", SECRET_KEY: secret }),
  secret,
  now: () => new Date(),
};
const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${database.name}` });
const { token } = await createAccessTokenService(deps).createOrganizationToken({
  organization_id: org.id,
  comment: "bench",
  scopes: ["events:write"],
  expires_in: null,
});
const app = await buildApp(deps, { logger: false });
const validateIngest = createIngestValidator(deps.now);

/** The benchmark database's backends, read before each stage (the read is a statement of its own). */
const backendPids = async () =>
  (await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`.execute(connection.db)).rows.map(
    (row) => row.pid,
  );
/** Nanoseconds on a CPU (`/proc/<pid>/schedstat`, first field); a backend gone since reads as 0. */
const onCpuNs = (pid: number) => {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return 0;
  }
};
const time = async <T>(stage: Stage, work: () => Promise<T> | T): Promise<T> => {
  const pids = await backendPids();
  const databaseBefore = pids.reduce((sum, pid) => sum + onCpuNs(pid), 0);
  const nodeBefore = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  stages[stage].push(performance.now() - started);
  const node = process.cpuUsage(nodeBefore);
  nodeCpu[stage].push((node.user + node.system) / 1000);
  databaseCpu[stage].push((pids.reduce((sum, pid) => sum + onCpuNs(pid), 0) - databaseBefore) / 1e6);
  return result;
};
const walBytes = async (stage: Stage, work: () => Promise<unknown>) => {
  const before = (await sql<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`.execute(connection.db)).rows[0]!.lsn;
  await time(stage, work);
  const { rows } = await sql<{ bytes: string }>`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ${before}::pg_lsn)::text AS bytes`.execute(
    connection.db,
  );
  wal[stage]!.push(Number(rows[0]!.bytes));
};

/** The batch's rows as the service builds them (events.service.ts `toInsert`, for this batch's shape). */
const toInserts = (events: { name: string; external_customer_id: string; external_id: string; timestamp: string; metadata: object }[]) =>
  events.map((e): EventInsert => ({
    organization_id: org.id,
    customer_id: null,
    external_customer_id: e.external_customer_id,
    member_id: null,
    external_member_id: null,
    name: e.name,
    timestamp: e.timestamp,
    external_id: e.external_id,
    parent_id: null,
    metadata: e.metadata as EventInsert["metadata"],
  }));

/** The app's transaction: the ingest lock, the event-type check, the claims and the events. */
const store = (batch: PreparedEvents) =>
  connection.db.transaction().execute(async (trx) => {
    await lockIngestShared(trx, [org.id]);
    await insertNewEventTypes(trx, batch.types, new Date());
    return copyEvents(trx, batch);
  });

const client = await connection.pool.connect();
for (let batch = 0; batch < BATCHES + 3; batch += 1) {
  const body = (prefix: string) => buildBatch(prefix, 0, batch, BATCH_SIZE);
  const response = await time("request", () =>
    app.inject({
      method: "POST",
      url: "/v1/events/ingest",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      payload: body("req"),
    }),
  );
  if (response.statusCode !== 200) throw new Error(`ingest answered ${response.statusCode}: ${response.body}`);
  const parsed = await time("parse", () => JSON.parse(body("stm")) as { events: Parameters<typeof toInserts>[0] });
  const validated: unknown = await time<unknown>("validate", () => validateIngest(JSON.parse(body("val"))));
  if (typeof validated !== "object" || validated === null || !("value" in validated)) throw new Error("the batch failed validation");
  const batchRows = await time("rows", () => prepareEvents(toInserts(parsed.events)));
  await walBytes("statement", () => store(batchRows));
  // The same transaction with the claims left out: what the claims table costs.
  const other = await prepareEvents(toInserts((JSON.parse(body("noc")) as { events: Parameters<typeof toInserts>[0] }).events));
  await walBytes("statementNoClaims", () => store({ ...other, claims: "" }));
  const copyText = parsed.events
    .map((e) => `${org.id}\t${e.external_customer_id}\t${e.name}\t${e.timestamp}\tcopy-${e.external_id}\t${JSON.stringify(e.metadata)}\n`)
    .join("");
  await walBytes("copy", () =>
    copyFromText(
      client,
      `COPY events (organization_id, external_customer_id, name, "timestamp", external_id, metadata) FROM STDIN`,
      copyText,
    ),
  );
  // The first batches warm the JIT and the caches: left out.
  if (batch === 2)
    for (const list of [...Object.values(stages), ...Object.values(wal), ...Object.values(nodeCpu), ...Object.values(databaseCpu)])
      list.length = 0;
}
client.release();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const request = median(stages.request);
console.log(
  `${BATCHES} batches of ${BATCH_SIZE} events per stage, one connection; medians per batch; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.log(
  `${"".padEnd(18)} ${"wall".padStart(10)} ${"share".padStart(6)}  ${"CPU node".padStart(9)}  ${"CPU db".padStart(8)}  ${"WAL".padStart(9)}`,
);
for (const stage of Object.keys(stages) as Stage[]) {
  const ms = median(stages[stage]);
  const walNote = wal[stage] ? `${(median(wal[stage]) / 1024).toFixed(0)} KiB` : "";
  console.log(
    `${stage.padEnd(18)} ${ms.toFixed(2).padStart(7)} ms ${`${((ms / request) * 100).toFixed(0)}%`.padStart(6)}  ${median(nodeCpu[stage]).toFixed(2).padStart(6)} ms  ${median(databaseCpu[stage]).toFixed(2).padStart(5)} ms  ${walNote.padStart(9)}`,
  );
}
await app.close();
await connection.close();
await database.stop();
