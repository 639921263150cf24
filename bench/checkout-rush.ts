/**
 * The launch-day rush: BENCH_BUYERS (default 1,000) buyers confirming their open checkouts through
 * `POST /v1/checkouts/client/{client_secret}/confirm` at once, 50 connections, sandbox processor,
 * side by side in one run with a floor: the same writes (customer, order and item, payment, benefit
 * grant and license key, the session's update, customer session, outbox rows: webhook events,
 * emails, jobs) as bare statements, one transaction per buyer, 50 at a time over a `pg` pool of the
 * app's size. Rounds interleave floor and app, so the machine's load hits both alike. Target: the
 * app's confirms per second at least 40 % of the floor's; no confirm answers 5xx; each confirmed
 * checkout has exactly one order (checked in the database after the run).
 *
 *   node --import tsx bench/checkout-rush.ts   (BENCH_BUYERS per round, default 1000; BENCH_ROUNDS, default 3)
 *
 * Lock waits, a measure the machine's load moves less than the rates: every 20 ms the bench samples
 * the database's active statements (`pg_stat_activity`) and prints, for the app's and the floor's
 * rounds, the share of samples waiting on a lock and the statements that waited most, each with
 * the kind of lock it waited for (`wait_event`).
 * BENCH_NO_ROLLUP_TRIGGERS=1 disables the metrics' order triggers in the bench's scratch database
 * first, to see what the rollups' row locks cost the rush.
 */
import autocannon from "autocannon";
import { sql } from "kysely";
import pg from "pg";
import { buildApp } from "../src/app.ts";
import { connect } from "../src/db/connection.ts";
import { benchDatabase } from "./bench-database.ts";
import { openBuyerCheckout, openLaunch } from "./checkout-launch.ts";
import { announceReady, withServerProcess } from "./harness.ts";
import { prepareRushFloor, type FloorIds } from "./checkout-rush.floor.ts";

const BUYERS = Math.min(Number(process.env.BENCH_BUYERS ?? 1000), 20_000);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const WARM_UP = Math.min(100, BUYERS);
const CONNECTIONS = 50;
const POOL_SIZE = 10;

type Ready = { port: number; secrets: string[]; databaseUrl: string; ids: FloorIds };

/** Child: the app on a fresh database, an organization with one product and one open session per buyer to come. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-rush");
  const connection = connect(database.url, POOL_SIZE);
  const { deps, org, services, productId } = await openLaunch(connection, database.name);
  const secrets: string[] = [];
  for (let i = 0; i < WARM_UP + BUYERS * ROUNDS; i += 1) {
    const checkout = await openBuyerCheckout(services, org.id, productId, i);
    secrets.push(checkout.client_secret);
  }
  const price = await connection.db.selectFrom("product_prices").select("id").where("product_id", "=", productId).executeTakeFirstOrThrow();
  const benefit = await connection.db
    .selectFrom("product_benefits")
    .select("benefit_id")
    .where("product_id", "=", productId)
    .executeTakeFirstOrThrow();
  // The scratch database only: what the rush costs without the metrics' order rollups.
  if (process.env.BENCH_NO_ROLLUP_TRIGGERS === "1")
    await sql`ALTER TABLE orders DISABLE TRIGGER metrics_order_insert_delete, DISABLE TRIGGER metrics_order_update`.execute(connection.db);
  const app = await buildApp(deps, { logger: false, services });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  const ids = { organizationId: org.id, productId: productId, priceId: price.id, benefitId: benefit.benefit_id };
  announceReady({ port: address.port, secrets, databaseUrl: database.url, ids } satisfies Ready, async () => {
    await app.close();
    await connection.close();
    await database.stop();
  });
}

/** Samples of the bench database's active statements: how many, and the lock waits by statement. */
interface LockSamples {
  active: number;
  waiting: number;
  byStatement: Map<string, number>;
}

/** Samples the active statements every 20 ms until stopped. */
function sampleLockWaits(pool: pg.Pool) {
  const samples: LockSamples = { active: 0, waiting: 0, byStatement: new Map() };
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await pool.query<{ wait_event_type: string | null; wait_event: string | null; query: string }>(
        `SELECT wait_event_type, wait_event, query FROM pg_stat_activity
         WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      for (const row of rows) {
        samples.active += 1;
        if (row.wait_event_type !== "Lock") continue;
        samples.waiting += 1;
        // The lock's kind first: `object` at COMMIT is the cluster-wide lock a commit that notified takes.
        const statement = `${row.wait_event ?? "?"}: ${row.query.replace(/\s+/g, " ").trim().slice(0, 80)}`;
        samples.byStatement.set(statement, (samples.byStatement.get(statement) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return async (): Promise<LockSamples> => {
    running = false;
    await loop;
    return samples;
  };
}

/** Runs `work` while sampling lock waits, adding them to `into`. */
async function sampled<T>(pool: pg.Pool, into: LockSamples, work: () => Promise<T>): Promise<T> {
  const stop = sampleLockWaits(pool);
  const result = await work();
  const samples = await stop();
  into.active += samples.active;
  into.waiting += samples.waiting;
  for (const [statement, n] of samples.byStatement) into.byStatement.set(statement, (into.byStatement.get(statement) ?? 0) + n);
  return result;
}

function printLockWaits(label: string, samples: LockSamples): void {
  const share = samples.active ? (samples.waiting / samples.active) * 100 : 0;
  console.log(`${label}: ${samples.waiting} of ${samples.active} active-statement samples waiting on a lock (${share.toFixed(1)}%)`);
  const top = [...samples.byStatement].sort((a, b) => b[1] - a[1]).slice(0, 5);
  for (const [statement, n] of top) console.log(`    ${String(n).padStart(6)}  ${statement}`);
}

interface Round {
  perSecond: number;
  fiveHundreds: number;
  non2xx: number;
}

/** Confirms `count` sessions, each once, 50 at a time; the rate is over the whole burst. */
function confirmBurst(port: number, secrets: string[]) {
  let next = 0;
  return async (count: number): Promise<Round> => {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: CONNECTIONS,
      amount: count,
      timeout: 60,
      requests: [
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          setupRequest: (request) => {
            const secret = secrets[next++];
            if (!secret) throw new Error("out of open sessions");
            return {
              ...request,
              path: `/v1/checkouts/client/${secret}/confirm`,
              body: JSON.stringify({ confirmation_token_id: "tok_visa" }),
            };
          },
        },
      ],
    });
    return { perSecond: result.requests.total / result.duration, fiveHundreds: result["5xx"], non2xx: result.non2xx + result.errors };
  };
}

/** After the run: every session confirmed gave exactly one order, and none gave two. */
async function checkOneOrderEach(pool: pg.Pool, organizationId: string, confirmed: number): Promise<void> {
  const { rows } = await pool.query<{ succeeded: string; orders: string; doubled: string }>(
    `SELECT (SELECT count(*) FROM checkouts WHERE organization_id = $1 AND status = 'succeeded' AND client_secret NOT LIKE 'floor\\_%') AS succeeded,
            (SELECT count(*) FROM orders o JOIN checkouts c ON c.id = o.checkout_id
              WHERE c.organization_id = $1 AND c.client_secret NOT LIKE 'floor\\_%') AS orders,
            (SELECT count(*) FROM (SELECT checkout_id FROM orders WHERE checkout_id IS NOT NULL GROUP BY checkout_id HAVING count(*) > 1) d) AS doubled`,
    [organizationId],
  );
  const { succeeded, orders, doubled } = rows[0]!;
  const ok = Number(succeeded) === confirmed && Number(orders) === confirmed && Number(doubled) === 0;
  console.log(
    `database after the run: ${succeeded} sessions succeeded, ${orders} orders from them, ${doubled} sessions with more than one order, ${confirmed} confirms answered 200: ${ok ? "one order per checkout" : "MISMATCH"}`,
  );
  if (!ok) process.exitCode = 1;
}

async function main(): Promise<void> {
  await withServerProcess<Ready>(import.meta.url, 1800, async (ready) => {
    const pool = new pg.Pool({ connectionString: ready.databaseUrl, max: POOL_SIZE });
    const app = confirmBurst(ready.port, ready.secrets);
    // The app's warm-up first: the floor copies the rows it wrote.
    const warm = await app(WARM_UP);
    const runFloor = await prepareRushFloor(pool, ready.ids);
    const floor = (count: number) => runFloor(count, CONNECTIONS);
    await floor(WARM_UP);
    const rounds: { floor: Round; app: Round }[] = [];
    const monitor = new pg.Pool({ connectionString: ready.databaseUrl, max: 1 });
    const none = (): LockSamples => ({ active: 0, waiting: 0, byStatement: new Map() });
    const waits = { floor: none(), app: none() };
    for (let round = 0; round < ROUNDS; round += 1)
      rounds.push({
        floor: await sampled(monitor, waits.floor, () => floor(BUYERS)),
        app: await sampled(monitor, waits.app, () => app(BUYERS)),
      });
    await monitor.end();
    const mean = (pick: (r: (typeof rounds)[number]) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
    console.log(`${BUYERS} buyers per round, ${CONNECTIONS} connections, pool ${POOL_SIZE}, ${ROUNDS} interleaved rounds (floor, app)`);
    for (const [i, r] of rounds.entries())
      console.log(
        `  round ${i + 1}: floor ${r.floor.perSecond.toFixed(0)}/s, app ${r.app.perSecond.toFixed(0)}/s = ${((r.app.perSecond / r.floor.perSecond) * 100).toFixed(1)}%`,
      );
    const fiveHundreds = warm.fiveHundreds + rounds.reduce((sum, r) => sum + r.app.fiveHundreds, 0);
    const failed = warm.non2xx + rounds.reduce((sum, r) => sum + r.app.non2xx, 0);
    console.log(
      `floor ${mean((r) => r.floor.perSecond).toFixed(0)} transactions/s, app ${mean((r) => r.app.perSecond).toFixed(0)} confirms/s`,
    );
    console.log(
      `app / floor: ${((mean((r) => r.app.perSecond) / mean((r) => r.floor.perSecond)) * 100).toFixed(1)}% (target 40%); 5xx: ${fiveHundreds}; not 200: ${failed}`,
    );
    printLockWaits("lock waits, floor", waits.floor);
    printLockWaits("lock waits, app", waits.app);
    if (fiveHundreds > 0) process.exitCode = 1;
    await checkOneOrderEach(pool, ready.ids.organizationId, WARM_UP + BUYERS * ROUNDS - failed);
    await pool.end();
  });
}

if (process.argv.includes("--serve")) await serve();
else await main();
