/**
 * Public POST /v1/customer-portal/license-keys/validate of activated keys through the app, side
 * by side with a bare `node:http` + `pg` server running the same statements in the same
 * transaction and writing the same JSON. The servers run in a child process so the load generator
 * does not share their event loop. The app's rate limits are raised out of the way, but still
 * counted: in memory, or in PostgreSQL with RATE_LIMIT_STORE=postgres.
 *
 *   node --import tsx bench/license-validate.ts   (BENCH_SECONDS per measurement, default 10; BENCH_ROUNDS, default 3; RATE_LIMIT_STORE, default memory)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { isDeepStrictEqual } from "node:util";
import { Kysely, PostgresDialect, type CompiledQuery } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import type { Database } from "../src/db/database.ts";
import { benchDatabase } from "./bench-database.ts";
import { seedCustomers, seedLicenseKeys } from "./fixtures.ts";
import { announceReady, compareWithBare, withServerProcess } from "./harness.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import type { LicenseKeyActivationRow, LicenseKeyRow } from "../src/modules/license-keys/license-keys.table.ts";
import type { CustomerReadRow } from "../src/modules/customers/customers.mapper.ts";
import { toActivation, toLicenseKey } from "../src/modules/license-keys/license-keys.mapper.ts";
import { createLicenseKeyService } from "../src/modules/license-keys/license-keys.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const CONNECTIONS = 50;
const POOL_SIZE = 10;
// Spread over many keys: each validation locks its key's row, and one hot key would measure the lock.
const KEYS = 500;

interface Target {
  key: string;
  organization_id: string;
  activation_id: string;
}
type Ready = { app: number; bare: number; targets: Target[] };

const readBody = async (request: IncomingMessage): Promise<string> => {
  let body = "";
  for await (const chunk of request) body += chunk;
  return body;
};

/** Child: database, seed, both servers; reports their ports to the parent. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-license");
  const name = database.name;
  const connection = connect(database.url, POOL_SIZE);
  await migrateToLatest(connection.db, connection.pool);

  const config = loadConfig({
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    LICENSE_KEY_RATE_LIMIT_PER_ADDRESS: "1000000000",
    LICENSE_KEY_RATE_LIMIT_PER_KEY: "1000000000",
    RATE_LIMIT_STORE: process.env.RATE_LIMIT_STORE,
  });
  const deps = { db: connection.db, readDb: connection.db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${name}` });
  const service = createLicenseKeyService(deps);
  const targets: Target[] = [];
  for (const key of await seedLicenseKeys(connection.db, org.id, await seedCustomers(connection.db, org.id, KEYS))) {
    const activation = await service.activate(
      { key: key.key, organization_id: org.id, label: "bench", conditions: { host: "bench" } },
      null,
    );
    targets.push({ key: key.key, organization_id: org.id, activation_id: activation.id });
  }

  const app = await buildApp(deps, { logger: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const appPort = (app.server.address() as { port: number }).port;

  // The app's own statements, captured as Kysely compiles them, so the bare server runs identical SQL.
  const captured: CompiledQuery[] = [];
  const spy = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: connection.pool }),
    log: (event) => void captured.push(event.query),
  });
  const sample = targets[0]!;
  const sampleKey = await connection.db.selectFrom("license_keys").selectAll().where("key", "=", sample.key).executeTakeFirstOrThrow();
  await createLicenseKeyService({ ...deps, db: spy }).validate({ ...sample, conditions: { host: "bench" } }, null);
  // Transaction control is issued by the bare server itself.
  const statements = captured.filter((query) => !/^(begin|commit|rollback)\b/i.test(query.sql));
  if (statements.length !== 4) throw new Error(`expected 4 statements, captured ${statements.length}`);
  const substitute = (params: readonly unknown[], values: Map<unknown, unknown>, now: Date) =>
    params.map((p) => (p instanceof Date ? now : values.has(p) ? values.get(p) : p));

  const bare = createServer((request, response) => {
    void (async () => {
      const input = JSON.parse(await readBody(request)) as Target & { conditions: Record<string, string> };
      const client = await connection.pool.connect();
      try {
        await client.query("BEGIN");
        const now = new Date();
        const values = new Map<unknown, unknown>([
          [sample.key, input.key],
          [sample.organization_id, input.organization_id],
          [sample.activation_id, input.activation_id],
        ]);
        const [lockQ, activationQ, updateQ, customerQ] = statements;
        const key = (await client.query(lockQ!.sql, substitute(lockQ!.parameters, values, now))).rows[0] as LicenseKeyRow | undefined;
        if (!key || key.status !== "granted" || (key.expires_at && now >= key.expires_at)) throw new Error("not found");
        values.set(sampleKey.id, key.id).set(sampleKey.customer_id, key.customer_id);
        const activation = (await client.query(activationQ!.sql, substitute(activationQ!.parameters, values, now))).rows[0] as
          LicenseKeyActivationRow | undefined;
        if (!activation || activation.conditions.host !== input.conditions.host) throw new Error("not found");
        const updated = (await client.query(updateQ!.sql, substitute(updateQ!.parameters, values, now))).rows[0] as LicenseKeyRow;
        const customer = (await client.query(customerQ!.sql, substitute(customerQ!.parameters, values, now))).rows[0] as CustomerReadRow;
        await client.query("COMMIT");
        response
          .writeHead(200, { "content-type": "application/json; charset=utf-8" })
          .end(JSON.stringify({ ...toLicenseKey(updated, customer), activation: toActivation(activation) }));
      } catch {
        await client.query("ROLLBACK");
        response.writeHead(404, { "content-type": "application/json" }).end('{"error":"ResourceNotFound","detail":"Not found"}');
      } finally {
        client.release();
      }
    })();
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const ready: Ready = { app: appPort, bare: (bare.address() as { port: number }).port, targets };
  announceReady(ready, async () => {
    await app.close();
    bare.close();
    await connection.close();
    await database.stop();
  });
}

const PATH = "/v1/customer-portal/license-keys/validate";
const bodyOf = (target: Target) => JSON.stringify({ ...target, conditions: { host: "bench" } });

function load(port: number, ready: Ready, seconds: number) {
  let next = 0;
  return autocannon({
    url: `http://127.0.0.1:${port}${PATH}`,
    connections: CONNECTIONS,
    duration: seconds,
    method: "POST",
    headers: { "content-type": "application/json" },
    requests: [{ setupRequest: (request) => ({ ...request, body: bodyOf(ready.targets[next++ % ready.targets.length]!) }) }],
  });
}

async function post(port: number, target: Target) {
  const response = await fetch(`http://127.0.0.1:${port}${PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: bodyOf(target),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function main(): Promise<void> {
  await withServerProcess<Ready>(import.meta.url, SECONDS * ROUNDS * 2 + 240, async (ready) => {
    const target = ready.targets[1]!;
    const ours = await post(ready.app, target);
    const theirs = await post(ready.bare, target);
    // The second call has one more validation and a later timestamp; everything else must match.
    const comparable = (body: Record<string, unknown>) => ({ ...body, validations: 0, last_validated_at: null });
    if (ours.status !== 200 || theirs.status !== 200 || !isDeepStrictEqual(comparable(ours.body), comparable(theirs.body))) {
      throw new Error(`responses differ (app ${ours.status}, bare ${theirs.status})`);
    }
    console.log(`validate: equal JSON documents from both servers; ${ready.targets.length} activated keys in rotation`);
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
