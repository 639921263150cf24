import type { FastifyInstance } from "fastify";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { createTestContext, testConfig, type TestContext } from "./helpers/context.ts";
import {
  createCheckout,
  createCustomer,
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
} from "./helpers/factories.ts";
import { perProcessStart, spawnProject, stopSpawned } from "./helpers/process.ts";

let ctx: TestContext;
let app: FastifyInstance;
const logged: string[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  // The app as deployed (info level), writing its log where the test can read it.
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(chunk.toString("utf8"));
      done();
    },
  });
  app = await buildApp({ ...ctx.deps, config: testConfig({ LOG_LEVEL: "info" }) }, { logger: { stream } });
});
afterAll(async () => {
  await app.close();
  await ctx.close();
});

describe("the request log", () => {
  it("records every request without the credentials it carried", async () => {
    const orgId = (await createOrganization(ctx.deps)).id;
    const token = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
    const session = await createCustomerSessionToken(ctx.deps, (await createCustomer(ctx.deps, orgId)).id);
    const checkout = await createCheckout(ctx.deps, orgId, { products: [await createProduct(ctx.deps, orgId)] });
    const signature = "5f2b8c1d9e0a4b7c6d3e2f1a0b9c8d7e";
    const requests = [
      { url: "/v1/orders/", headers: { authorization: `Bearer ${token}` } },
      { url: "/v1/customer-portal/customers/me", headers: { authorization: `Bearer ${session}` } },
      { url: `/v1/checkouts/client/${checkout.client_secret}` },
      { url: `/v1/orders/?customer_session_token=${session}` },
      { url: `/blobs/invoices/${orgId}/x.pdf?expires=4102444800&filename=x.pdf&signature=${signature}` },
    ];
    for (const request of requests) await app.inject({ method: "GET", ...request });

    const log = logged.join("");
    // Each request was logged (its path is there), so the absence below is redaction, not silence.
    for (const path of ["/v1/orders/", "/v1/customer-portal/customers/me", "/v1/checkouts/client/", "/blobs/invoices/"])
      expect(log).toContain(path);
    expect(log).toContain("signature=[REDACTED]");
    for (const secret of [token, session, checkout.client_secret, signature]) expect(log).not.toContain(secret);
  });
});

describe("the server started by a person", () => {
  afterEach(stopSpawned);

  it(
    "reads .env from its folder (the environment winning), and logs readable lines at a terminal, JSON lines otherwise",
    async () => {
      const folder = await mkdtemp(path.join(os.tmpdir(), "commerce-env-"));
      const settings = [`DATABASE_URL=${ctx.database.url}`, `SECRET_KEY=${ctx.deps.secret}`, `DATA_DIR=${folder}/data`];
      await writeFile(
        path.join(folder, ".env"),
        [...settings, "PORT=0", "LOG_LEVEL=info", "WORKER_ENABLED=false", "HOST=192.0.2.1"].join("\n"),
      );
      const environment = { NODE_ENV: "development", HOST: "127.0.0.1" };

      const atTerminal = spawnProject(["src/server.ts"], environment, { cwd: folder, terminal: true });
      await atTerminal.waitFor(/ready/);
      // The database named in .env, not an embedded one; the address from the environment, not .env's.
      expect(atTerminal.output()).toMatch(/INFO.*ready[\s\S]*embeddedDatabase: false/);
      // The app's own logger writes through its own pino-pretty thread: its line may come after.
      await atTerminal.waitFor(/Server listening at http:\/\/127\.0\.0\.1:\d+/);
      expect(atTerminal.output()).not.toContain('"msg":');
      await stopSpawned();

      const piped = spawnProject(["src/server.ts"], environment, { cwd: folder });
      await piped.waitFor(/"msg":"ready"/);
      expect(piped.output()).toContain('"embeddedDatabase":false');
    },
    perProcessStart(2),
  );
});
