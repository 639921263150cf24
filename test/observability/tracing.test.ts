import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.ts";
import { perProcessStart, spawnProject, stopSpawned, type Spawned } from "../helpers/process.ts";
import { testSmtpServer } from "../helpers/smtp-server.ts";
import { startStripeStandIn } from "../helpers/stripe-stand-in/stand-in.ts";
import { standInClient, stripeEnv } from "../helpers/stripe-stand-in/stripe-context.ts";
import { startReceiver, type Receiver } from "../helpers/webhooks.ts";

const OWNER = `polar_pat_${"t".repeat(43)}`;
const SERVER_KIND = 2;
const CLIENT_KIND = 3;
const CONSUMER_KIND = 5;

let database: TestDatabase;
let dataDir: string;
let collector: OtlpReceiver;
let subscriber: Receiver;
beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-tracing-"));
  collector = await startOtlpReceiver();
  subscriber = await startReceiver();
});
afterEach(stopSpawned);
afterAll(async () => {
  await collector.close();
  await subscriber.close();
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const start = async (env: Record<string, string>) => {
  const server = spawnProject(["src/server.ts"], {
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: "0",
    ADMIN_TOKEN: OWNER,
    LOG_LEVEL: "info",
    WORKER_ENABLED: "true",
    ...env,
  });
  const [, url] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  await server.waitFor(/"msg":"ready"/);
  return { server, url: url! };
};

const post = async (url: string, body: unknown, requestId?: string, status = 201, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${OWNER}`,
      "content-type": "application/json",
      ...(requestId ? { "x-request-id": requestId } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(status);
  return { body: (await response.json()) as { id: string }, requestId: response.headers.get("x-request-id") };
};

/**
 * A customer created over HTTP by an organization with a webhook endpoint: the request writes the
 * customer and enqueues the event's fan-out job, whose delivery job POSTs to the subscriber.
 */
async function createCustomerWithWebhook(url: string, slug: string, requestId?: string) {
  const org = (await post(`${url}/v1/organizations/`, { name: slug, slug })).body;
  await post(`${url}/v1/webhooks/endpoints`, { url: subscriber.url, format: "raw", events: ["customer.created"], organization_id: org.id });
  const before = subscriber.received.length;
  const created = await post(`${url}/v1/customers/`, { email: `${slug}@example.com`, organization_id: org.id }, requestId);
  while (!subscriber.received.slice(before).some((hook) => hook.body.includes(created.body.id))) await sleep(50);
  return created;
}

const waitForSpan = async (find: () => ReceivedSpan | undefined, what: string, server: Spawned) => {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const span = find();
    if (span) return span;
    if (Date.now() > deadline)
      throw new Error(`no ${what} span; received: ${collector.spans.map((s) => s.name).join(", ")}\n${server.output().slice(-2000)}`);
    await sleep(100);
  }
};

describe("tracing", { timeout: perProcessStart(1) }, () => {
  it("is off without OTEL_EXPORTER_OTLP_ENDPOINT: nothing reaches a collector", async () => {
    const { server, url } = await start({});
    await createCustomerWithWebhook(url, "untraced-org");
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(collector.requests).toEqual([]);
  });

  it("exports spans of requests, their SQL, the jobs they enqueued (linked) and the outgoing calls", async () => {
    const { server, url } = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      // Export within a fifth of a second, not the default five.
      OTEL_BSP_SCHEDULE_DELAY: "200",
    });
    const created = await createCustomerWithWebhook(url, "traced-org", "trace-test-req-1");
    expect(created.requestId).toBe("trace-test-req-1");

    const request = await waitForSpan(
      () => collector.spans.find((span) => span.kind === SERVER_KIND && span.attributes["request.id"] === "trace-test-req-1"),
      "request",
      server,
    );
    expect(request).toMatchObject({ name: "POST /v1/customers/", service: "commerce-api", parentSpanId: undefined });
    expect(request.attributes["http.route"]).toBe("/v1/customers/");
    expect(request.attributes["http.response.status_code"] ?? request.attributes["http.status_code"]).toBe(201);

    // The request's statements, each a child of the request's span (directly or through the pool's connect).
    const statements = collector.spans.filter((span) => span.traceId === request.traceId && span.name.startsWith("pg.query"));
    expect(statements.length).toBeGreaterThan(0);
    const spanIds = new Set(collector.spans.filter((span) => span.traceId === request.traceId).map((span) => span.spanId));
    for (const statement of statements)
      expect(spanIds.has(statement.parentSpanId!) || statement.parentSpanId === request.spanId).toBe(true);
    expect(statements.some((span) => String(span.attributes["db.statement"] ?? span.attributes["db.query.text"]).includes("add_job"))).toBe(
      true,
    );

    // An ingestion's COPY is a statement span too, with its statement, in the request's trace.
    const ingest = await post(
      `${url}/v1/events/ingest`,
      {
        events: [
          {
            name: "traced",
            external_customer_id: "traced-ext",
            organization_id: (created.body as unknown as { organization_id: string }).organization_id,
          },
        ],
      },
      "trace-test-ingest",
      200,
    );
    expect(ingest.requestId).toBe("trace-test-ingest");
    const ingestRequest = await waitForSpan(
      () => collector.spans.find((span) => span.kind === SERVER_KIND && span.attributes["request.id"] === "trace-test-ingest"),
      "ingest request",
      server,
    );
    const copy = await waitForSpan(
      () =>
        collector.spans.find(
          (span) => span.traceId === ingestRequest.traceId && String(span.attributes["db.query.text"]).startsWith("COPY events"),
        ),
      "COPY statement",
      server,
    );
    expect(copy).toMatchObject({ name: expect.stringMatching(/^pg\.query:COPY/), kind: CLIENT_KIND });

    // The fan-out job: a trace of its own, linked to the request that enqueued it.
    const fanout = await waitForSpan(
      () =>
        collector.spans.find((span) => span.name === "job webhooks.fanout" && span.links.some((link) => link.traceId === request.traceId)),
      "fan-out job",
      server,
    );
    expect(fanout.kind).toBe(CONSUMER_KIND);
    expect(fanout.traceId).not.toBe(request.traceId);
    expect(fanout.links[0]!.spanId).toBe(request.spanId);
    // The delivery job, enqueued by the fan-out, is linked to it; its POST to the subscriber is a client span inside it.
    const delivery = await waitForSpan(
      () =>
        collector.spans.find((span) => span.name === "job webhooks.deliver" && span.links.some((link) => link.spanId === fanout.spanId)),
      "delivery job",
      server,
    );
    const subscriberPort = Number(new URL(subscriber.url).port);
    const outgoing = await waitForSpan(
      () =>
        collector.spans.find(
          (span) => span.traceId === delivery.traceId && span.kind === CLIENT_KIND && span.attributes["server.port"] === subscriberPort,
        ),
      "webhook POST",
      server,
    );
    expect(outgoing.name).toBe("POST");

    // Secrets in a path or a query reach no span: the collector is another place data is kept.
    const secret = "SECRETSECRETSECRETSECRET";
    await fetch(`${url}/v1/checkouts/client/polar_c_${secret}?customer_session_token=polar_cst_${secret}&signature=${secret}`);
    const secretRequest = await waitForSpan(
      () => collector.spans.find((span) => span.attributes["http.route"] === "/v1/checkouts/client/:client_secret"),
      "client-secret request",
      server,
    );
    expect(secretRequest.attributes["url.path"]).toBe("/v1/checkouts/client/[REDACTED]");
    expect(JSON.stringify(collector.spans)).not.toContain(secret);
    expect(collector.requests.every((line) => line === "POST /v1/traces application/json")).toBe(true);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });

  it("exports a span per SMTP send, inside the job that sent it, and a client span per call to Stripe", async () => {
    const smtp = await testSmtpServer();
    await smtp.start();
    const stripe = await startStripeStandIn();
    try {
      const { server, url } = await start({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        OTEL_BSP_SCHEDULE_DELAY: "200",
        SMTP_URL: smtp.url,
        EMAIL_FROM: "Shop Mail <mail@shop.example>",
        ...stripeEnv(stripe),
      });
      const org = (await post(`${url}/v1/organizations/`, { name: "Mailing org", slug: "mailing-org" })).body;

      // A portal sign-in code: the request enqueues the email, whose job sends it over SMTP. The
      // caller's trace context (a `traceparent` header) makes the request's span its child.
      await post(`${url}/v1/customers/`, { email: "reader@example.com", organization_id: org.id });
      const caller = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
      await post(
        `${url}/v1/customer-portal/customer-session/request`,
        { email: "reader@example.com", organization_id: org.id },
        "trace-test-sign-in",
        202,
        { traceparent: `00-${caller.traceId}-${caller.spanId}-01` },
      );
      const signIn = await waitForSpan(
        () => collector.spans.find((span) => span.attributes["request.id"] === "trace-test-sign-in"),
        "sign-in request",
        server,
      );
      expect(signIn).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId, kind: SERVER_KIND });
      const smtpPort = Number(new URL(smtp.url).port);
      const send = await waitForSpan(
        () => collector.spans.find((span) => span.name === "smtp send" && span.attributes["server.port"] === smtpPort),
        "SMTP send",
        server,
      );
      expect(send).toMatchObject({ kind: CLIENT_KIND, attributes: { "server.address": "127.0.0.1", "smtp.accepted": true } });
      const job = collector.spans.find((span) => span.spanId === send.parentSpanId);
      expect(job).toMatchObject({ name: "job emails.send", kind: CONSUMER_KIND, traceId: send.traceId });
      expect(job!.links.some((link) => link.traceId === signIn.traceId)).toBe(true);
      expect(smtp.received.map((mail) => mail.to)).toHaveLength(1);

      // A checkout confirmed with Stripe: its call to create the payment intent is a client span of the confirm's trace.
      const product = (
        await post(`${url}/v1/products/`, {
          name: "Traced product",
          organization_id: org.id,
          prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
        })
      ).body;
      const checkout = (await post(`${url}/v1/checkouts/`, { products: [product.id] })).body as { id: string; client_secret?: string };
      const confirmationToken = await standInClient(stripe).testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
      const confirmed = await fetch(`${url}/v1/checkouts/client/${checkout.client_secret}/confirm`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": "trace-test-confirm" },
        body: JSON.stringify({
          customer_email: "buyer@example.com",
          customer_name: "Bea Buyer",
          customer_billing_address: { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" },
          confirmation_token_id: confirmationToken.id,
        }),
      });
      expect(confirmed.status, await confirmed.text()).toBe(200);
      const confirm = await waitForSpan(
        () => collector.spans.find((span) => span.attributes["request.id"] === "trace-test-confirm"),
        "confirm request",
        server,
      );
      // Each call to Stripe (the customer, then the payment intent) is a client span of the confirm's trace.
      const stripePort = Number(new URL(stripe.url).port);
      const toStripe = () =>
        collector.spans.filter(
          (span) => span.traceId === confirm.traceId && span.kind === CLIENT_KIND && span.attributes["server.port"] === stripePort,
        );
      await waitForSpan(
        () => toStripe().find((span) => span.attributes["url.full"] === `${stripe.url}/v1/payment_intents`),
        "Stripe call",
        server,
      );
      // Every call the server made (the test's own, for the confirmation token, aside) has its span.
      const calls = stripe.requests.filter((request) => !request.path.startsWith("/v1/test_helpers/"));
      expect(
        toStripe()
          .map((span) => `${span.name} ${String(span.attributes["url.full"])}`)
          .sort(),
      ).toEqual(calls.map((request) => `${request.method} ${stripe.url}${request.path}`).sort());
      stripe.assertNoViolations();

      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    } finally {
      await smtp.stop();
      await stripe.close();
    }
  });
});
