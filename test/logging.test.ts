import type { FastifyInstance } from "fastify";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { createTestContext, testConfig, type TestContext } from "./helpers/context.ts";
import { setTimeout as sleep } from "node:timers/promises";
import {
  createCheckout,
  createCustomer,
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  registerForTax,
} from "./helpers/factories.ts";
import { testSmtpServer } from "./helpers/smtp-server.ts";
import { startReceiver } from "./helpers/webhooks.ts";
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

describe("a full run's log at debug level", () => {
  afterEach(stopSpawned);

  it(
    "holds none of the secrets the run created: tokens, session tokens, webhook secret, client secret, card number, sign-in code",
    async () => {
      const smtp = await testSmtpServer();
      await smtp.start();
      const subscriber = await startReceiver();
      const orgId = (await createOrganization(ctx.deps)).id;
      await registerForTax(ctx.deps, orgId);
      const orgToken = await createOrganizationToken(ctx.deps, orgId, ["webhooks:write", "checkouts:write", "customer_sessions:write"]);
      const productId = (await createProduct(ctx.deps, orgId)).product.id;
      const server = spawnProject(["src/server.ts"], {
        DATABASE_URL: ctx.database.url,
        SECRET_KEY: ctx.deps.secret,
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), "commerce-secrets-")),
        PORT: "0",
        LOG_LEVEL: "debug",
        WORKER_ENABLED: "true",
        SMTP_URL: smtp.url,
        EMAIL_FROM: "Shop Mail <mail@shop.example>",
      });
      const [, url] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      await server.waitFor(/"msg":"ready"/);
      const call = async (method: string, route: string, body?: unknown, token?: string) => {
        const response = await fetch(`${url}${route}`, {
          method,
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: response.status, body: (await response.json()) as Record<string, string> };
      };

      const endpoint = await call(
        "POST",
        "/v1/webhooks/endpoints",
        { url: subscriber.url, format: "raw", events: ["order.paid"] },
        orgToken,
      );
      expect(endpoint.status).toBe(201);
      const webhookSecret = endpoint.body.secret!;
      expect(webhookSecret).toMatch(/^whsec_/);

      // A card number where a confirmation token belongs (a client's mistake), then the sandbox's test card.
      const cardNumber = "4242424242424242";
      const buyer = {
        customer_name: "Ada",
        customer_billing_address: { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" },
      };
      const mistaken = await call("POST", "/v1/checkouts/", { products: [productId] }, orgToken);
      await call("POST", `/v1/checkouts/client/${mistaken.body.client_secret}/confirm`, {
        ...buyer,
        customer_email: "mistake@example.com",
        confirmation_token_id: cardNumber,
      });
      const checkout = await call("POST", "/v1/checkouts/", { products: [productId] }, orgToken);
      const confirmed = await call("POST", `/v1/checkouts/client/${checkout.body.client_secret}/confirm`, {
        ...buyer,
        customer_email: "ada@example.com",
        confirmation_token_id: "tok_visa",
      });
      expect(confirmed.status).toBe(200);
      const checkoutSession = confirmed.body.customer_session_token!;
      const customerId = (
        await ctx.deps.db.selectFrom("customers").select("id").where("email", "=", "ada@example.com").executeTakeFirstOrThrow()
      ).id;
      const session = await call("POST", "/v1/customer-sessions/", { customer_id: customerId }, orgToken);
      expect(session.status).toBe(201);
      const sessionToken = session.body.token!;

      // Portal sign-in by emailed code, then the portal with the session it gives, in a header and in a query.
      expect(
        (await call("POST", "/v1/customer-portal/customer-session/request", { email: "ada@example.com", organization_id: orgId })).status,
      ).toBe(202);
      while (!smtp.received.some((mail) => /^[A-Z0-9]{6}$/m.test(mail.text ?? ""))) await sleep(50);
      const code = /^([A-Z0-9]{6})$/m.exec(smtp.received.find((mail) => /^[A-Z0-9]{6}$/m.test(mail.text ?? ""))!.text!)![1]!;
      const signedIn = await call("POST", "/v1/customer-portal/customer-session/authenticate", { code });
      expect(signedIn.status).toBe(200);
      const portalToken = signedIn.body.token!;
      expect((await call("GET", "/v1/customer-portal/customers/me", undefined, portalToken)).status).toBe(200);
      await call("GET", `/v1/customer-portal/orders/?customer_session_token=${sessionToken}`);
      // The order.paid webhook went out, signed with the secret.
      while (subscriber.received.length === 0) await sleep(50);

      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      await subscriber.close();
      await smtp.stop();
      const log = server.output();
      // The run was logged at debug level (requests and jobs), so the absence below is redaction, not silence.
      for (const line of ['"level":20', "/v1/customer-portal/customer-session/authenticate", "/confirm", "webhooks.deliver"])
        expect(log).toContain(line);
      const secrets = {
        orgToken,
        webhookSecret,
        webhookSecretBody: webhookSecret.slice("whsec_".length),
        clientSecret: checkout.body.client_secret!,
        checkoutSession,
        sessionToken,
        portalToken,
        code,
        cardNumber,
        smtpPassword: smtp.password,
        serverSecret: ctx.deps.secret,
      };
      for (const [name, secret] of Object.entries(secrets)) expect(log.includes(secret), `${name} in the log`).toBe(false);
    },
    perProcessStart(1),
  );
});
