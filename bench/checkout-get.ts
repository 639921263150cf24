/**
 * GET /v1/checkouts/{id} (three products) through the app, side by side with a bare `node:http`
 * server running the same SQL through `pg` and writing the same JSON. The servers run in a child
 * process so the load generator does not share their event loop.
 *
 *   node --import tsx bench/checkout-get.ts   (BENCH_SECONDS per measurement, default 10; BENCH_ROUNDS, default 3)
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
import { toCheckout } from "../src/modules/checkouts/checkouts.mapper.ts";
import { findCheckoutWithRelations, type CheckoutWithRelations } from "../src/modules/checkouts/checkouts.repository.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices } from "../src/services.ts";
import { seedProducts } from "./fixtures.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const CONNECTIONS = 50;
const POOL_SIZE = 10;

type Ready = { app: number; bare: number; path: string; token: string };

/** Child: database, seed, both servers; reports their ports to the parent. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-checkout");
  const name = database.name;
  const connection = connect(database.url, POOL_SIZE);
  await migrateToLatest(connection.db, connection.pool);

  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", CHECKOUT_BASE_URL: "https://checkout.bench" });
  const deps = { db: connection.db, readDb: connection.db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${name}` });
  const token = (
    await createAccessTokenService(deps).createOrganizationToken({
      organization_id: org.id,
      comment: "bench",
      scopes: ["checkouts:read"],
      expires_in: null,
    })
  ).token;
  const products = await seedProducts(connection.db, org.id, 3);
  const services = buildServices(deps);
  const checkout = await services.checkouts.create({ products }, [org.id]);

  const app = await buildApp(deps, { logger: false, services });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const appPort = (app.server.address() as { port: number }).port;

  // The app's own statement, captured as Kysely compiles it, so the bare server runs identical SQL.
  let captured: CompiledQuery | null = null;
  const spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: connection.pool }),
    log: (event) => void (captured ??= event.query),
  });
  await findCheckoutWithRelations(spy, { id: checkout.id }, [org.id]);
  const statement = captured as CompiledQuery | null;
  if (!statement) throw new Error("no statement captured");
  const bareParams = (id: string) => statement.parameters.map((p) => (p === checkout.id ? id : p));
  const urls = { checkoutBaseUrl: config.checkoutBaseUrl };
  const bare = createServer((request, response) => {
    const id = (request.url ?? "").split("/").pop() ?? "";
    connection.pool
      .query(statement.sql, bareParams(id))
      .then((result) => {
        const row = result.rows[0] as CheckoutWithRelations | undefined;
        if (!row) {
          response.writeHead(404, { "content-type": "application/json" }).end('{"error":"ResourceNotFound","detail":"Not found"}');
          return;
        }
        response.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(toCheckout(row, urls)));
      })
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const ready: Ready = { app: appPort, bare: (bare.address() as { port: number }).port, path: `/v1/checkouts/${checkout.id}`, token };
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
    // Key order may differ (the app serializes in schema order); the documents must not.
    if (check.status !== 200 || !isDeepStrictEqual(JSON.parse(ours), JSON.parse(theirs)))
      throw new Error(`responses differ (app ${check.status})`);
    if (process.env.BENCH_DUMP) await (await import("node:fs/promises")).writeFile(process.env.BENCH_DUMP, ours);
    console.log(`response: ${ours.length} bytes (app) / ${theirs.length} bytes (bare), equal JSON documents`);
    await compareWithBare((port, seconds) => load(port, ready, seconds), ready, {
      rounds: ROUNDS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      poolSize: POOL_SIZE,
    });
  });
}

if (process.argv.includes("--serve")) await serve();
else await main();
