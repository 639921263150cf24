/**
 * Statements per renewal, the sweep's against the floor's: a measure the machine's load does not
 * move. Seeds the renewal bench's world (subscription-renewals.world.ts) with BENCH_SUBSCRIPTIONS
 * (default 100) due subscriptions, counts every statement sent to PostgreSQL while the sweep renews
 * them, then while the floor writes as many renewals' rows, and prints both per renewal with the
 * sweep's statements grouped by their text (BENCH_VERBOSE=1) and the sweep's CPU time per renewal.
 * BENCH_RENEWALS stops the sweep after that many renewals (the rest stay due), so a renewal's cost
 * is measured among 10,000 due subscriptions without renewing them all. BENCH_EXPLAIN=1 adds the
 * buffers and time PostgreSQL reports for the sweep's statements (auto_explain's ANALYZE and
 * BUFFERS, nested statements included: the job queue's functions and the triggers), per renewal in
 * each of five slices of the sweep (BENCH_SLICE renewals each), and per statement text in the first,
 * the heaviest and the last slice with the rows their plans' scans and sorts touched: whether a renewal late in
 * a large sweep costs more than an early one, and where.
 *
 *   npm run bench:subscription-renewals-statements
 */
import pg from "pg";
import { connect } from "../src/db/connection.ts";
import { benchDatabase } from "./bench-database.ts";
import { renewalWorld } from "./subscription-renewals.world.ts";

const SUBSCRIPTIONS = Math.min(Number(process.env.BENCH_SUBSCRIPTIONS ?? 100), 10_000);
const CONCURRENCY = 3;
const RENEWALS = Number(process.env.BENCH_RENEWALS ?? Infinity);
const EXPLAIN = Boolean(process.env.BENCH_EXPLAIN);
const SLICE = Number(process.env.BENCH_SLICE ?? Math.ceil(Math.min(RENEWALS, SUBSCRIPTIONS) / 5));

/** Every statement's text, from the moment counting starts; the pool's clients are pg.Client's. */
const sent: string[] = [];
let counting = false;
/** Called with each statement counted (the sweep's stop after BENCH_RENEWALS orders). */
let onSent = (_text: string) => undefined as void;
const query: (...args: unknown[]) => unknown = Reflect.get(pg.Client.prototype, "query");
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "");
  if (counting) {
    sent.push(text);
    onSent(text);
  }
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

const textKey = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 90);

/** A plan node of auto_explain's JSON, as far as this bench reads it. */
type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
};
/** Per statement text: runs, buffers (shared hit + read), milliseconds, and the rows its scans and sorts touched. */
type Explained = { runs: number; buffers: number; ms: number; nodes: Map<string, number> };
/** Per slice of the sweep (renewals begun / SLICE), per statement text. */
const explained = new Map<number, Map<string, Explained>>();
let explaining = false;
/** Orders the sweep has inserted so far: the renewal a statement belongs to, give or take the concurrency. */
let orders = 0;

/** Scans and sorts of a plan, with the rows they touched (returned or filtered out). */
function walk(node: PlanNode, into: Map<string, number>): void {
  const type = node["Node Type"];
  if (/Scan|Sort|Aggregate/.test(type) && type !== "Function Scan" && type !== "Result") {
    const rows = ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1);
    const name = `${type}${node["Relation Name"] ? ` on ${node["Relation Name"]}` : ""}${node["Index Name"] ? ` (${node["Index Name"]})` : ""}`;
    into.set(name, (into.get(name) ?? 0) + rows);
  }
  for (const child of node.Plans ?? []) walk(child, into);
}

/** auto_explain's notice: "duration: 0.123 ms  plan:" then the plan as JSON. */
function explainNotice(message: string): void {
  const duration = /duration: ([\d.]+) ms/.exec(message);
  const brace = message.indexOf("{");
  if (!explaining || !duration || brace < 0) return;
  const plan = JSON.parse(message.slice(brace)) as { "Query Text": string; Plan: PlanNode };
  const key = textKey(plan["Query Text"]);
  const slice = Math.floor(Math.max(orders - 1, 0) / SLICE);
  const texts = explained.get(slice) ?? new Map<string, Explained>();
  explained.set(slice, texts);
  const entry = texts.get(key) ?? { runs: 0, buffers: 0, ms: 0, nodes: new Map<string, number>() };
  entry.runs += 1;
  entry.buffers += (plan.Plan["Shared Hit Blocks"] ?? 0) + (plan.Plan["Shared Read Blocks"] ?? 0);
  entry.ms += Number(duration[1]);
  walk(plan.Plan, entry.nodes);
  texts.set(key, entry);
}

/** Counts the statements `work` sends, grouped by their text's first 90 characters (whitespace folded). */
async function count(work: () => Promise<void>) {
  sent.length = 0;
  counting = true;
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  counting = false;
  const groups = new Map<string, number>();
  for (const text of sent) {
    const key = textKey(text);
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return { total: sent.length, groups, cpuMs: (used.user + used.system) / 1000 };
}

/** Buffers and time per renewal in each slice, then per statement text in the first and last slices. */
function printExplained(renewed: number): void {
  const per = (n: number, of: number) => (n / of).toFixed(2);
  const slices = [...explained.keys()].sort((a, b) => a - b);
  const inSlice = (slice: number) => Math.min(SLICE, renewed - slice * SLICE);
  console.log("\nPostgreSQL per renewal (auto_explain; nested statements included, so a function's statements count twice):");
  for (const slice of slices) {
    const all = [...explained.get(slice)!.values()];
    const sum = (f: (e: Explained) => number) => all.reduce((total, e) => total + f(e), 0);
    console.log(
      `renewals ${slice * SLICE + 1}–${slice * SLICE + inSlice(slice)}: ${per(
        sum((e) => e.buffers),
        inSlice(slice),
      )} buffers, ${per(
        sum((e) => e.ms),
        inSlice(slice),
      )} ms`,
    );
  }
  // The last whole slice: the statements a sweep runs once at its end (the resumes' and retries'
  // claims) fall in the renewals of the last, partial one.
  const full = slices.filter((slice) => inSlice(slice) === SLICE);
  const buffers = (slice: number) => [...explained.get(slice)!.values()].reduce((total, e) => total + e.buffers, 0);
  const heaviest = full.reduce((worst, slice) => (buffers(slice) > buffers(worst) ? slice : worst), slices[0]!);
  for (const slice of new Set([slices[0]!, heaviest, full.at(-1) ?? slices.at(-1)!])) {
    console.log(
      `\nrenewals ${slice * SLICE + 1}–${slice * SLICE + inSlice(slice)}, per statement text: runs per renewal, buffers per run, ms per run; rows its scans and sorts touched per run`,
    );
    for (const [text, e] of [...explained.get(slice)!].sort((a, b) => b[1].buffers - a[1].buffers)) {
      const nodes = [...e.nodes]
        .filter(([, rows]) => rows / e.runs >= 1)
        .map(([name, rows]) => `${name}: ${Math.round(rows / e.runs)}`)
        .join("; ");
      const runs = per(e.runs, inSlice(slice)).padStart(6);
      console.log(
        `${runs} ${per(e.buffers, e.runs).padStart(8)} ${per(e.ms, e.runs).padStart(7)}  ${text}${nodes ? `\n${" ".repeat(24)}${nodes}` : ""}`,
      );
    }
  }
}

const database = await benchDatabase("bench-renewal-statements");
const connection = connect(database.url, 10);
if (EXPLAIN)
  connection.pool.on("connect", (client) => {
    client.on("notice", (notice) => explainNotice(notice.message ?? ""));
    void client.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on;
      SET auto_explain.log_buffers = on; SET auto_explain.log_timing = off; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_format = json; SET auto_explain.log_level = notice`);
  });
try {
  const world = await renewalWorld(connection, SUBSCRIPTIONS, database.name);
  world.passPeriodEnd();
  let renewed = 0;
  onSent = (text) => {
    if (text.startsWith(`insert into "orders"`) && ++orders === RENEWALS) world.endSweep();
  };
  explaining = EXPLAIN;
  const sweep = await count(async () => {
    renewed = (await world.services.subscriptionRenewals.sweep()).renewed;
  });
  explaining = false;
  onSent = () => undefined;
  const floor = await count(async () => {
    await world.floor(world.floorSubscriptions.slice(0, renewed), CONCURRENCY);
  });
  const per = (n: number, of: number) => (n / of).toFixed(2);
  console.log(`${renewed} renewals (of ${SUBSCRIPTIONS} due), sweep concurrency ${CONCURRENCY}`);
  console.log(
    `sweep: ${sweep.total} statements = ${per(sweep.total, renewed)} per renewal; CPU ${per(sweep.cpuMs, renewed)} ms per renewal (this process, app and driver)`,
  );
  console.log(
    `floor: ${floor.total} statements = ${per(floor.total, renewed)} per renewal; CPU ${per(floor.cpuMs, renewed)} ms per renewal`,
  );
  if (process.env.BENCH_VERBOSE) {
    console.log("\nsweep statements per renewal, by text:");
    for (const [text, n] of [...sweep.groups].sort((a, b) => b[1] - a[1])) console.log(`${per(n, renewed).padStart(7)}  ${text}`);
  }
  if (EXPLAIN) printExplained(renewed);
} finally {
  await connection.close();
  await database.stop();
}
