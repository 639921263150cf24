/**
 * `POST /v1/customer-sessions/` for a member followed by one portal read with the new session
 * (`GET /v1/customer-portal/customers/me`), side by side with the same pair for a customer
 * session, in one run against one app. Two organizations share the database: one with the member
 * model (a team customer of 5 members, the session opened for a plain member), one without (an
 * individual customer). Each load's connections chain the pair: the read carries the token the
 * create just returned, so every read authenticates a session never seen before.
 *
 *   node --import tsx bench/member-sessions.ts   (BENCH_SECONDS per measurement, default 10; BENCH_ROUNDS, default 3)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { insertCustomer } from "../src/modules/customers/customers.repository.ts";
import { insertMember } from "../src/modules/customers/members.repository.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices } from "../src/services.ts";
import type { Executor } from "../src/db/database.ts";
import { benchDatabase } from "./bench-database.ts";
import { announceReady, compareInterleaved, withServerProcess } from "./harness.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const CONNECTIONS = 20;
const POOL_SIZE = 10;
// Other customers of each organization (teams with an owner and a member on the member side), so the indexes have rows to skip.
const OTHER_CUSTOMERS = 2_000;
const READ_PATH = "/v1/customer-portal/customers/me";

/** What each side posts, with the organization token allowed to. */
type Side = { token: string; body: string };
type Ready = { port: number; member: Side; customer: Side };

async function customerOf(db: Executor, organizationId: string, type: "individual" | "team", email: string) {
  return insertCustomer(db, {
    organization_id: organizationId,
    type,
    email,
    external_id: null,
    name: "Bench Customer",
    billing_name: null,
    locale: null,
    default_payment_method_id: null,
    modified_at: null,
    deleted_at: null,
  });
}

/** Child: database, two organizations, the app; reports the port and each side's request. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-member-sessions");
  const connection = connect(database.url, POOL_SIZE);
  await migrateToLatest(connection.db, connection.pool);
  const db = connection.db;
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", CHECKOUT_BASE_URL: "https://checkout.bench" });
  const deps = { db, readDb: db, config, secret: randomBytes(32).toString("hex"), now: () => new Date() };
  const organizations = createOrganizationService(deps);
  const tokens = createAccessTokenService(deps);
  const sessionToken = async (organizationId: string) =>
    (
      await tokens.createOrganizationToken({
        organization_id: organizationId,
        comment: "bench",
        scopes: ["customer_sessions:write"],
        expires_in: null,
      })
    ).token;

  const teams = await organizations.create({
    name: "Bench Teams",
    slug: `teams-${database.name}`,
    feature_settings: { member_model_enabled: true },
  });
  const plain = await organizations.create({ name: "Bench Plain", slug: `plain-${database.name}` });

  const team = await customerOf(db, teams.id, "team", "team@bench.test");
  const roles = ["owner", "billing_manager", "member", "member", "member"] as const;
  const members = [];
  for (const [i, role] of roles.entries()) {
    members.push(
      await insertMember(db, {
        organization_id: teams.id,
        customer_id: team.id,
        email: `member-${i}@bench.test`,
        name: `Member ${i}`,
        external_id: `usr_${i}`,
        role,
        modified_at: null,
        deleted_at: null,
      }),
    );
  }
  const individual = await customerOf(db, plain.id, "individual", "solo@bench.test");
  await connection.pool.query(
    `WITH others AS (
       INSERT INTO customers (organization_id, type, email, name, metadata)
       SELECT $1, 'team', 'team-' || n || '@bench.test', 'Team ' || n, '{}' FROM generate_series(1, $2::int) AS n
       RETURNING id)
     INSERT INTO members (organization_id, customer_id, email, role)
       SELECT $1, id, 'owner@' || id || '.test', 'owner' FROM others
       UNION ALL SELECT $1, id, 'member@' || id || '.test', 'member' FROM others`,
    [teams.id, OTHER_CUSTOMERS],
  );
  await connection.pool.query(
    `INSERT INTO customers (organization_id, email, name, metadata)
       SELECT $1, 'solo-' || n || '@bench.test', 'Solo ' || n, '{}' FROM generate_series(1, $2::int) AS n`,
    [plain.id, OTHER_CUSTOMERS],
  );
  await connection.pool.query("ANALYZE");

  const app = await buildApp(deps, { logger: false, services: buildServices(deps) });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const ready: Ready = {
    port: (app.server.address() as { port: number }).port,
    member: { token: await sessionToken(teams.id), body: JSON.stringify({ customer_id: team.id, member_id: members[2]!.id }) },
    customer: { token: await sessionToken(plain.id), body: JSON.stringify({ customer_id: individual.id }) },
  };
  announceReady(ready, async () => {
    await app.close();
    await connection.close();
    await database.stop();
  });
}

type Context = { token?: string };

/** The pair on every connection: the create, then the read with the token it returned. */
function load(port: number, side: Side, seconds: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/v1/customer-sessions/",
        headers: { authorization: `Bearer ${side.token}`, "content-type": "application/json" },
        body: side.body,
        onResponse: (_status: number, body: string, context: Context) => {
          context.token = (JSON.parse(body) as { token: string }).token;
        },
      },
      {
        method: "GET",
        path: READ_PATH,
        setupRequest: (request: autocannon.Request, context: Context) => ({
          ...request,
          headers: { authorization: `Bearer ${context.token ?? ""}` },
        }),
      },
    ],
  });
}

/** One pair outside the measurement: both answers as expected, with the side's token prefix. */
async function check(port: number, side: Side, prefix: string): Promise<void> {
  const created = await fetch(`http://127.0.0.1:${port}/v1/customer-sessions/`, {
    method: "POST",
    headers: { authorization: `Bearer ${side.token}`, "content-type": "application/json" },
    body: side.body,
  });
  const session = (await created.json()) as { token: string };
  if (created.status !== 201 || !session.token.startsWith(prefix)) throw new Error(`create answered ${created.status}`);
  const read = await fetch(`http://127.0.0.1:${port}${READ_PATH}`, { headers: { authorization: `Bearer ${session.token}` } });
  if (read.status !== 200) throw new Error(`read answered ${read.status}`);
}

async function main(): Promise<void> {
  await withServerProcess<Ready>(import.meta.url, SECONDS * ROUNDS * 2 + 180, async (ready) => {
    await check(ready.port, ready.member, "polar_mst_");
    await check(ready.port, ready.customer, "polar_cst_");
    console.log("each load: POST /v1/customer-sessions/ then GET /v1/customer-portal/customers/me with its token (2 requests a pair)");
    await compareInterleaved(
      { name: "customer", load: (seconds) => load(ready.port, ready.customer, seconds) },
      { name: "member", load: (seconds) => load(ready.port, ready.member, seconds) },
      { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, poolSize: POOL_SIZE, floor: 85 },
    );
  });
}

if (process.argv.includes("--serve")) await serve();
else await main();
