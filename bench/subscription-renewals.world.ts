/**
 * The renewal benches' world: one organization whose `subscriptions` monthly subscriptions (a saved
 * sandbox card each) are all due at the same instant, the rows of `WARM_UP` renewals made by the
 * app for the floor to copy, as many floor subscriptions (not due: the floor only writes their
 * rows), and the app's services at a clock the bench moves. Shared by the throughput bench
 * (subscription-renewals.ts) and the statement count (subscription-renewals.statements.ts).
 * `jobs`: the pool the sweep and the floor run on, as a worker in the API process runs its jobs on
 * a pool of its own (src/runtime.ts, `workerPool`); the requests' pool when not given.
 */
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import type { Connection } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { organizationClock } from "../src/values/clock.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { insertPrices, insertProduct } from "../src/modules/products/products.repository.ts";
import { buildServices, sharedAdapters } from "../src/services.ts";
import { prepareRenewalFloor } from "./subscription-renewals.floor.ts";
import { rebuildSubscriptionRollups } from "../src/modules/metrics/metric-rollups.repository.ts";

/** Renewed by a sweep at an earlier instant before the measurement: the rows the floor copies. */
const WARM_UP = 20;

export async function renewalWorld(connection: Connection, subscriptions: number, slug: string, jobs: Connection = connection) {
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
  const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${slug}` });
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
  // started a month before `now`, so every one is due at the same instant; the warm-up's a day
  // earlier; the floor's (`floor…` customers) not due for a year: the floor writes their rows only.
  const started = new Date("2026-12-15T12:00:00.000Z");
  const warmAt = new Date(now.getTime() - 86_400_000);
  const customers = (prefix: string, count: number) =>
    sql`INSERT INTO customers (organization_id, email, name, metadata, billing_address)
    SELECT ${org.id}, ${prefix} || i || '@bench.example', 'Buyer ' || i, '{}', '{"country":"US","line1":null,"line2":null,"postal_code":null,"city":null,"state":null}'
    FROM generate_series(1, ${count}::int) AS i`.execute(connection.db);
  await customers("buyer", subscriptions);
  await customers("warm", WARM_UP);
  await customers("floor", subscriptions);
  await sql`INSERT INTO payment_methods (organization_id, customer_id, processor_reference, type, brand, last4)
    SELECT organization_id, id, 'pm_sandbox_tok_visa_' || substr(md5(id::text), 1, 24), 'card', 'visa', '4242' FROM customers WHERE organization_id = ${org.id}`.execute(
    connection.db,
  );
  // The subscriptions with triggers off (session_replication_role = replica), their metric rollups
  // rebuilt after, as bench/metrics-year.ts does: the metrics' row triggers in one statement of
  // 20,000 rows would take a lock per customer in one transaction (more than PostgreSQL's lock
  // table holds) and update the same day rows thousands of times in it, which a sweep's renewals,
  // each in its own transaction, never do.
  await connection.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    await sql`INSERT INTO subscriptions (organization_id, customer_id, product_id, status, amount, currency, recurring_interval,
        recurring_interval_count, anchor_day, current_period_start, current_period_end, started_at, payment_method_id, created_at)
      SELECT c.organization_id, c.id, ${product.id}, 'active', 1500, 'usd', 'month', 1, 15, ${started},
        CASE WHEN c.email LIKE 'warm%' THEN ${warmAt} WHEN c.email LIKE 'floor%' THEN ${new Date(now.getTime() + 365 * 86_400_000)} ELSE ${now} END::timestamptz,
        ${started}, m.id, ${started}
      FROM customers c JOIN payment_methods m ON m.customer_id = c.id WHERE c.organization_id = ${org.id}`.execute(trx);
    await sql`INSERT INTO subscription_prices (subscription_id, product_price_id, organization_id, amount, position)
      SELECT id, ${price!.id}, organization_id, 1500, 0 FROM subscriptions WHERE organization_id = ${org.id}`.execute(trx);
  });
  await rebuildSubscriptionRollups(connection.db, org.id);
  await sql`ANALYZE`.execute(connection.db);
  const sample = await connection.db
    .selectFrom("subscriptions")
    .select("id")
    .where("current_period_end", "=", now)
    .orderBy("id")
    .offset(Math.floor(subscriptions / 2))
    .limit(1)
    .executeTakeFirstOrThrow();

  const services = buildServices(deps);
  const jobServices = jobs === connection ? services : buildServices({ ...deps, db: jobs.db, readDb: jobs.db }, sharedAdapters(services));
  // The warm-up renewals, at their own instant: the floor copies the rows they wrote.
  const due = now;
  now = new Date(warmAt.getTime() + 1000);
  await jobServices.subscriptionRenewals.sweep();
  now = due;
  const floor = await prepareRenewalFloor(jobs.pool, org.id);
  const floorSubscriptions = (
    await sql<{ id: string; customer_id: string }>`SELECT s.id, s.customer_id FROM subscriptions s JOIN customers c ON c.id = s.customer_id
      WHERE c.email LIKE 'floor%' ORDER BY s.id`.execute(connection.db)
  ).rows;
  return {
    deps,
    services,
    /** What the sweep runs on: the services on the `jobs` pool. */
    renewals: jobServices.subscriptionRenewals,
    token,
    /** A subscription in the middle of the due ones, for the readers. */
    sampleId: sample.id,
    floor,
    floorSubscriptions,
    /** Moves the clock past the period end: every subscription is due now. */
    passPeriodEnd: () => {
      now = new Date(now.getTime() + 1000);
    },
    /** Moves the clock back before the period end: nothing is due, so a running sweep stops after the renewals it holds. */
    endSweep: () => {
      now = new Date(due.getTime() - 1000);
    },
  };
}
