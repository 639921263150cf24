/**
 * GET /v1/customers/{id}/state (a customer with 3 subscriptions, 2 of them giving access, and 10
 * benefit grants) through the app, side by side with a bare `node:http` server running the same SQL
 * statement through `pg` and writing the same JSON. The servers run in a child process so the load
 * generator does not share their event loop.
 *
 *   node --import tsx bench/customer-state.ts   (BENCH_SECONDS per measurement, default 10; BENCH_ROUNDS, default 3)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { isDeepStrictEqual } from "node:util";
import { Kysely, PostgresDialect, type CompiledQuery } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import type { Database } from "../src/db/database.ts";
import { benchDatabase } from "./bench-database.ts";
import { announceReady, compareWithBare, withServerProcess } from "./harness.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { insertBenefit, insertBenefitGrant } from "../src/modules/benefits/benefits.repository.ts";
import { toCustomerState } from "../src/modules/customer-state/customer-state.mapper.ts";
import { findCustomerState, type CustomerStateRow } from "../src/modules/customer-state/customer-state.repository.ts";
import { insertCustomer } from "../src/modules/customers/customers.repository.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { insertPrices, insertProduct } from "../src/modules/products/products.repository.ts";
import { startSubscription } from "../src/modules/subscriptions/subscriptions.steps.ts";
import { buildServices } from "../src/services.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const CONNECTIONS = 50;
const POOL_SIZE = 10;
const GRANTS = 10;
// Other customers of the organization, so the indexes have rows to skip.
const OTHER_CUSTOMERS = 2_000;

type Ready = { app: number; bare: number; path: string; token: string };

/** Child: database, seed, both servers; reports their ports to the parent. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-customer-state");
  const connection = connect(database.url, POOL_SIZE);
  await migrateToLatest(connection.db, connection.pool);
  const db = connection.db;

  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", CHECKOUT_BASE_URL: "https://checkout.bench" });
  const deps = { db, readDb: db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${database.name}` });
  const token = (
    await createAccessTokenService(deps).createOrganizationToken({
      organization_id: org.id,
      comment: "bench",
      scopes: ["customers:read"],
      expires_in: null,
    })
  ).token;

  const customer = await insertCustomer(db, {
    organization_id: org.id,
    email: "customer@bench.test",
    external_id: "bench-customer",
    name: "Bench Customer",
    billing_name: null,
    locale: null,
    default_payment_method_id: null,
    modified_at: null,
    deleted_at: null,
    metadata: JSON.stringify({ plan: "pro", seats: 3 }),
  });
  const now = new Date();
  const benefitIds: string[] = [];
  for (let i = 0; i < GRANTS; i += 1) {
    const benefit = await insertBenefit(db, {
      organization_id: org.id,
      type: i % 2 === 0 ? "license_keys" : "feature_flag",
      description: `Benefit ${i}`,
      properties: JSON.stringify({}),
      metadata: JSON.stringify({ feature: `f${i}` }),
      modified_at: null,
    });
    benefitIds.push(benefit.id);
  }
  // Three subscriptions: active, trialing, past due (the last one is not in the state).
  for (const [i, trialEnd] of [null, new Date(now.getTime() + 7 * 86_400_000), null].entries()) {
    const product = await insertProduct(db, {
      organization_id: org.id,
      name: `Plan ${i}`,
      description: null,
      recurring_interval: "month",
      recurring_interval_count: 1,
      trial_interval: null,
      trial_interval_count: null,
      meter_interval: null,
      meter_interval_count: null,
      modified_at: null,
    });
    const [price] = await insertPrices(db, [
      { organization_id: org.id, product_id: product.id, amount_type: "fixed", price_amount: 1000 * (i + 1), position: 0 },
    ]);
    const subscription = await startSubscription(db, {
      organizationId: org.id,
      customerId: customer.id,
      product: { id: product.id, recurringInterval: "month", recurringIntervalCount: 1 },
      checkoutId: null,
      prices: [{ id: price!.id, amount: 1000 * (i + 1) }],
      currency: "usd",
      taxBehavior: null,
      amount: 1000 * (i + 1),
      discountId: null,
      seats: null,
      trialEnd,
      metadata: { source: "bench" },
      customFieldData: {},
      paymentMethodId: null,
      now,
    });
    if (i === 2) await db.updateTable("subscriptions").set({ status: "past_due" }).where("id", "=", subscription.id).execute();
  }
  for (const [i, benefitId] of benefitIds.entries()) {
    await insertBenefitGrant(db, {
      created_at: now,
      modified_at: null,
      organization_id: org.id,
      customer_id: customer.id,
      benefit_id: benefitId,
      order_id: null,
      subscription_id: null,
      granted_at: now,
      revoked_at: null,
      properties: JSON.stringify(i % 2 === 0 ? { license_key_id: randomBytes(16).toString("hex"), display_key: "****-BENCH" } : {}),
    });
  }
  // One grant each for the other customers, in one statement.
  await connection.pool.query(
    `WITH others AS (
       INSERT INTO customers (organization_id, email, external_id, name, metadata)
       SELECT $1, 'other-' || n || '@bench.test', 'other-' || n, 'Other ' || n, '{}' FROM generate_series(1, $2::int) AS n
       RETURNING id)
     INSERT INTO benefit_grants (organization_id, customer_id, benefit_id, granted_at) SELECT $1, id, $3, now() FROM others`,
    [org.id, OTHER_CUSTOMERS, benefitIds[0]],
  );
  await connection.pool.query("ANALYZE");

  const services = buildServices(deps);
  const app = await buildApp(deps, { logger: false, services });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const appPort = (app.server.address() as { port: number }).port;

  // The app's own statement, captured as Kysely compiles it, so the bare server runs identical SQL.
  let captured: CompiledQuery | null = null;
  const spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: connection.pool }),
    log: (event) => void (captured ??= event.query),
  });
  await findCustomerState(spy, { id: customer.id }, [org.id]);
  const statement = captured as CompiledQuery | null;
  if (!statement) throw new Error("no statement captured");
  const bareParams = (id: string) => statement.parameters.map((p) => (p === customer.id ? id : p));
  const bare = createServer((request, response) => {
    const id = (request.url ?? "").split("/")[3] ?? "";
    connection.pool
      .query(statement.sql, bareParams(id))
      .then((result) => {
        const row = result.rows[0] as CustomerStateRow | undefined;
        if (!row) {
          response.writeHead(404, { "content-type": "application/json" }).end('{"error":"ResourceNotFound","detail":"Not found"}');
          return;
        }
        response
          .writeHead(200, { "content-type": "application/json; charset=utf-8" })
          .end(JSON.stringify(toCustomerState(row, [], new Map())));
      })
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const ready: Ready = { app: appPort, bare: (bare.address() as { port: number }).port, path: `/v1/customers/${customer.id}/state`, token };
  announceReady(ready, async () => {
    await app.close();
    bare.close();
    await connection.close();
    await database.stop();
  });
}

function load(port: number, ready: Ready, seconds: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}${ready.path}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${ready.token}` },
  });
}

async function main(): Promise<void> {
  await withServerProcess<Ready>(import.meta.url, SECONDS * ROUNDS * 2 + 180, async (ready) => {
    const check = await fetch(`http://127.0.0.1:${ready.app}${ready.path}`, { headers: { authorization: `Bearer ${ready.token}` } });
    const bareCheck = await fetch(`http://127.0.0.1:${ready.bare}${ready.path}`);
    const [ours, theirs] = [await check.text(), await bareCheck.text()];
    if (check.status !== 200 || !isDeepStrictEqual(JSON.parse(ours), JSON.parse(theirs)))
      throw new Error(`responses differ (app ${check.status})`);
    const state = JSON.parse(ours) as { active_subscriptions: unknown[]; granted_benefits: unknown[] };
    if (state.active_subscriptions.length !== 2 || state.granted_benefits.length !== GRANTS) throw new Error("unexpected state");
    console.log(`response: ${ours.length} bytes (app) / ${theirs.length} bytes (bare), equal JSON documents`);
    await compareWithBare((port, seconds) => load(port, ready, seconds), ready, {
      rounds: ROUNDS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      poolSize: POOL_SIZE,
      floor: 85,
    });
  });
}

if (process.argv.includes("--serve")) await serve();
else await main();
