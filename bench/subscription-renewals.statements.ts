/**
 * Statements per renewal, the sweep's against the floor's: a measure the machine's load does not
 * move. Seeds the renewal bench's world (subscription-renewals.world.ts) with BENCH_SUBSCRIPTIONS
 * (default 100) due subscriptions, counts every statement sent to PostgreSQL while the sweep renews
 * them, then while the floor writes as many renewals' rows, and prints both per renewal with the
 * sweep's statements grouped by their text (BENCH_VERBOSE=1) and the sweep's CPU time per renewal.
 *
 *   npm run bench:subscription-renewals-statements
 */
import pg from "pg";
import { connect } from "../src/db/connection.ts";
import { benchDatabase } from "./bench-database.ts";
import { renewalWorld } from "./subscription-renewals.world.ts";

const SUBSCRIPTIONS = Math.min(Number(process.env.BENCH_SUBSCRIPTIONS ?? 100), 10_000);
const CONCURRENCY = 3;

/** Every statement's text, from the moment counting starts; the pool's clients are pg.Client's. */
const sent: string[] = [];
let counting = false;
const query: (...args: unknown[]) => unknown = Reflect.get(pg.Client.prototype, "query");
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "");
  if (counting) sent.push(text);
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

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
    const key = text.replace(/\s+/g, " ").trim().slice(0, 90);
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return { total: sent.length, groups, cpuMs: (used.user + used.system) / 1000 };
}

const database = await benchDatabase("bench-renewal-statements");
const connection = connect(database.url, 10);
try {
  const world = await renewalWorld(connection, SUBSCRIPTIONS, database.name);
  world.passPeriodEnd();
  let renewed = 0;
  const sweep = await count(async () => {
    renewed = (await world.services.subscriptionRenewals.sweep()).renewed;
  });
  const floor = await count(async () => {
    await world.floor(world.floorSubscriptions.slice(0, SUBSCRIPTIONS), CONCURRENCY);
  });
  const per = (n: number, of: number) => (n / of).toFixed(2);
  console.log(`${renewed} renewals (of ${SUBSCRIPTIONS} due), sweep concurrency ${CONCURRENCY}`);
  console.log(
    `sweep: ${sweep.total} statements = ${per(sweep.total, renewed)} per renewal; CPU ${per(sweep.cpuMs, renewed)} ms per renewal (this process, app and driver)`,
  );
  console.log(
    `floor: ${floor.total} statements = ${per(floor.total, SUBSCRIPTIONS)} per renewal; CPU ${per(floor.cpuMs, SUBSCRIPTIONS)} ms per renewal`,
  );
  if (process.env.BENCH_VERBOSE) {
    console.log("\nsweep statements per renewal, by text:");
    for (const [text, n] of [...sweep.groups].sort((a, b) => b[1] - a[1])) console.log(`${per(n, renewed).padStart(7)}  ${text}`);
  }
} finally {
  await connection.close();
  await database.stop();
}
