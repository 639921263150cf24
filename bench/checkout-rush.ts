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
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";
import { seedProducts } from "./fixtures.ts";
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
  await migrateToLatest(connection.db, connection.pool);
  const secret = randomBytes(32).toString("hex");
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", ENVIRONMENT: "sandbox", SECRET_KEY: secret });
  const deps = { db: connection.db, readDb: connection.db, config, secret, now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench launch", slug: `bench-${database.name}` });
  const services = buildServices(deps);
  const [productId] = await seedProducts(connection.db, org.id, 1);
  const secrets: string[] = [];
  for (let i = 0; i < WARM_UP + BUYERS * ROUNDS; i += 1) {
    const checkout = await services.checkouts.create(
      {
        products: [productId!],
        customer_email: `buyer${i}@bench.example`,
        customer_name: `Buyer ${i}`,
        customer_billing_address: { country: "US", line1: "1 Main St", city: "New York", postal_code: "10001", state: "US-NY" },
      },
      [org.id],
    );
    secrets.push(checkout.client_secret);
  }
  const price = await connection.db
    .selectFrom("product_prices")
    .select("id")
    .where("product_id", "=", productId!)
    .executeTakeFirstOrThrow();
  const benefit = await connection.db
    .selectFrom("product_benefits")
    .select("benefit_id")
    .where("product_id", "=", productId!)
    .executeTakeFirstOrThrow();
  const app = await buildApp(deps, { logger: false, services });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  const ids = { organizationId: org.id, productId: productId!, priceId: price.id, benefitId: benefit.benefit_id };
  announceReady({ port: address.port, secrets, databaseUrl: database.url, ids } satisfies Ready, async () => {
    await app.close();
    await connection.close();
    await database.stop();
  });
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
    for (let round = 0; round < ROUNDS; round += 1) rounds.push({ floor: await floor(BUYERS), app: await app(BUYERS) });
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
    if (fiveHundreds > 0) process.exitCode = 1;
    await checkOneOrderEach(pool, ready.ids.organizationId, WARM_UP + BUYERS * ROUNDS - failed);
    await pool.end();
  });
}

if (process.argv.includes("--serve")) await serve();
else await main();
