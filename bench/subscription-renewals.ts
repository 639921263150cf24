/**
 * The renewal sweep: BENCH_SUBSCRIPTIONS (default 10,000) monthly subscriptions due at the same
 * instant, each renewed with a `subscription_cycle` order and charged off-session through the
 * sandbox processor. Reports the sweep's throughput (renewals per second) and, side by side in one
 * run, the p99 of `GET /v1/subscriptions/{id}` while the sweep runs against the same load with no
 * sweep (target: at most 2×). The server and its sweep run in a child process, as in a deployment
 * (the worker shares the API's process); the load generator is the parent.
 *
 *   node --import tsx bench/subscription-renewals.ts   (BENCH_SECONDS for the quiet measurement, default 10)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { fork } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { organizationClock } from "../src/values/clock.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { insertPrices, insertProduct } from "../src/modules/products/products.repository.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";

const SUBSCRIPTIONS = Math.min(Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000), 100_000);
const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const CONNECTIONS = 10;
const POOL_SIZE = 10;

type Ready = { port: number; path: string; token: string };
type Swept = { renewed: number; ms: number };

/** Child: a database with the due subscriptions, the app listening, and the sweep on the parent's word. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-renewals");
  const connection = connect(database.url, POOL_SIZE);
  await migrateToLatest(connection.db, connection.pool);
  let now = new Date("2027-01-15T12:00:00.000Z");
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", SECRET_KEY: randomBytes(32).toString("hex") });
  const deps = {
    db: connection.db,
    readDb: connection.db,
    config,
    secret: randomBytes(32).toString("hex"),
    now: organizationClock(() => now),
  };
  const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${database.name}` });
  const token = (
    await createAccessTokenService(deps).createOrganizationToken({
      organization_id: org.id,
      comment: "bench",
      scopes: ["subscriptions:read"],
      expires_in: null,
    })
  ).token;
  const product = await insertProduct(connection.db, {
    organization_id: org.id,
    name: "Monthly",
    description: null,
    recurring_interval: "month",
    recurring_interval_count: 1,
    trial_interval: null,
    trial_interval_count: null,
    meter_interval: null,
    meter_interval_count: null,
    modified_at: null,
  });
  const [price] = await insertPrices(connection.db, [
    { organization_id: org.id, product_id: product.id, amount_type: "fixed", price_amount: 1500, position: 0 },
  ]);
  // One statement per table: customers with a saved sandbox card each, and their subscriptions, all
  // started a month before `now`, so every one is due at the same instant.
  const started = new Date("2026-12-15T12:00:00.000Z");
  await sql`INSERT INTO customers (organization_id, email, name, metadata, billing_address)
    SELECT ${org.id}, 'buyer' || i || '@bench.example', 'Buyer ' || i, '{}', '{"country":"US","line1":null,"line2":null,"postal_code":null,"city":null,"state":null}'
    FROM generate_series(1, ${SUBSCRIPTIONS}) AS i`.execute(connection.db);
  await sql`INSERT INTO payment_methods (organization_id, customer_id, processor_reference, type, brand, last4)
    SELECT organization_id, id, 'pm_sandbox_tok_visa_' || substr(md5(id::text), 1, 24), 'card', 'visa', '4242' FROM customers WHERE organization_id = ${org.id}`.execute(
    connection.db,
  );
  await sql`INSERT INTO subscriptions (organization_id, customer_id, product_id, status, amount, currency, recurring_interval,
      recurring_interval_count, anchor_day, current_period_start, current_period_end, started_at, payment_method_id, created_at)
    SELECT c.organization_id, c.id, ${product.id}, 'active', 1500, 'usd', 'month', 1, 15, ${started}, ${now}, ${started}, m.id, ${started}
    FROM customers c JOIN payment_methods m ON m.customer_id = c.id WHERE c.organization_id = ${org.id}`.execute(connection.db);
  await sql`INSERT INTO subscription_prices (subscription_id, product_price_id, organization_id, amount, position)
    SELECT id, ${price!.id}, organization_id, 1500, 0 FROM subscriptions WHERE organization_id = ${org.id}`.execute(connection.db);
  await sql`ANALYZE`.execute(connection.db);
  const sample = await connection.db
    .selectFrom("subscriptions")
    .select("id")
    .orderBy("id")
    .offset(Math.floor(SUBSCRIPTIONS / 2))
    .limit(1)
    .executeTakeFirstOrThrow();

  const services = buildServices(deps);
  const app = await buildApp(deps, { logger: false, services });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.send?.({ port, path: `/v1/subscriptions/${sample.id}`, token } satisfies Ready);
  process.on("message", (message) => {
    if (message === "sweep") {
      // The clock passes the period end: every subscription is due now.
      now = new Date(now.getTime() + 1000);
      const started = performance.now();
      void services.subscriptionRenewals
        .sweep()
        .then((done) => process.send?.({ renewed: done.renewed, ms: performance.now() - started } satisfies Swept));
    } else {
      void app
        .close()
        .then(() => connection.close())
        .then(() => database.stop())
        .then(() => process.exit(0));
    }
  });
}

const load = (ready: Ready, seconds: number) =>
  autocannon({
    url: `http://127.0.0.1:${ready.port}${ready.path}`,
    headers: { authorization: `Bearer ${ready.token}` },
    connections: CONNECTIONS,
    duration: seconds,
  });

async function measure(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: ["--import", "tsx"] });
  const messages: unknown[] = [];
  const waiters: ((message: unknown) => void)[] = [];
  child.on("message", (message) => {
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else messages.push(message);
  });
  const next = <T>() =>
    new Promise<T>((resolve) => (messages.length ? resolve(messages.shift() as T) : waiters.push((m) => resolve(m as T))));
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  try {
    const ready = await next<Ready>();
    await load(ready, 2);
    const quiet = await load(ready, SECONDS);
    // The same load while the sweep renews every subscription: measured until the sweep is done.
    child.send("sweep");
    const swept = next<Swept>();
    const loads: autocannon.Result[] = [];
    let done: Swept | null = null;
    void swept.then((result) => (done = result));
    // BENCH_QUIET_SWEEP=1: the sweep alone, for its throughput without readers.
    if (process.env.BENCH_QUIET_SWEEP) await swept;
    while (done === null) loads.push(await load(ready, 5));
    const result = done as Swept;
    const windowP99s = loads.map((r) => r.latency.p99).sort((a, b) => a - b);
    const busyP99 = windowP99s.length ? windowP99s[windowP99s.length - 1]! : Number.NaN;
    const medianP99 = windowP99s.length ? windowP99s[Math.floor(windowP99s.length / 2)]! : Number.NaN;
    const busyMean = loads.reduce((sum, r) => sum + r.requests.average, 0) / Math.max(loads.length, 1);
    console.log(`${SUBSCRIPTIONS} subscriptions due at once, ${CONNECTIONS} connections reading one subscription, pool ${POOL_SIZE}`);
    console.log(
      `sweep: ${result.renewed} renewals in ${(result.ms / 1000).toFixed(1)} s = ${((result.renewed / result.ms) * 1000).toFixed(0)} renewals/s`,
    );
    console.log(`GET /v1/subscriptions/{id} without sweep: ${quiet.requests.average.toFixed(0)} req/s, p99 ${quiet.latency.p99} ms`);
    console.log(
      `GET /v1/subscriptions/{id} during sweep:  ${busyMean.toFixed(0)} req/s, p99 ${medianP99} ms (median of ${loads.length} 5-s windows), worst window ${busyP99} ms`,
    );
    const quietP99 = Math.max(quiet.latency.p99, 1);
    console.log(
      `p99 during / without: ${(medianP99 / quietP99).toFixed(2)}× median window, ${(busyP99 / quietP99).toFixed(2)}× worst window (ceiling 2×)`,
    );
  } finally {
    child.send("stop");
  }
}

if (process.argv.includes("--serve")) await serve();
else await measure();
