import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import { buildServices } from "../../../src/services.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { removeQueuedJob } from "../../helpers/jobs.ts";
import { createTestContext, testConfig, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization } from "../../helpers/factories.ts";
import { savePaymentMethod } from "../../../src/modules/payments/payments.steps.ts";
import {
  STRIPE_ENV,
  WEBHOOK_URL,
  deliver,
  deliverRaw,
  eventJobs,
  runEventJobs,
  storedEvents,
  stripeEvent,
} from "./stripe-webhook-helpers.ts";

let ctx: TestContext;
let orgId: string;

beforeAll(async () => {
  ctx = await createTestContext({ env: STRIPE_ENV });
  orgId = (await createOrganization(ctx.deps)).id;
});
afterAll(() => ctx.close());

const detached = (id: string, eventId?: string) =>
  stripeEvent("payment_method.detached", { id, object: "payment_method", customer: null }, eventId);

/** Nothing stored and no job queued: what every refused or ignored delivery leaves. */
async function nothingStored(): Promise<void> {
  expect(await storedEvents(ctx)).toEqual([]);
  expect(await eventJobs(ctx)).toEqual([]);
}

describe("POST /v1/integrations/stripe/webhook: refusals", () => {
  const payload = JSON.stringify(detached("pm_refused"));
  badInputTable(
    () => (options) => ctx.request(options),
    [
      {
        name: "no Stripe-Signature header",
        request: () => ({ method: "POST", url: WEBHOOK_URL, payload, headers: { "content-type": "application/json" } }),
        status: 400,
        error: "BadRequest",
      },
      {
        name: "a signature made with another secret",
        request: () => ({
          method: "POST",
          url: WEBHOOK_URL,
          payload,
          headers: {
            "content-type": "application/json",
            "stripe-signature": `t=${Math.floor(ctx.clock.now().getTime() / 1000)},v1=${"ab".repeat(32)}`,
          },
        }),
        status: 401,
        error: "InvalidWebhookSignature",
      },
      {
        name: "a header without a timestamp",
        request: () => ({
          method: "POST",
          url: WEBHOOK_URL,
          payload,
          headers: { "content-type": "application/json", "stripe-signature": `v1=${"ab".repeat(32)}` },
        }),
        status: 401,
        error: "InvalidWebhookSignature",
      },
    ],
    nothingStored,
  );

  it("answers 401 to a signature made with another secret, however well formed", async () => {
    const response = await deliverRaw(ctx, payload, { secret: "whsec_someone_else" });
    expect(response.statusCode, response.body).toBe(401);
    expect(response.json()).toEqual({ error: "InvalidWebhookSignature", detail: "Invalid signature." });
    await nothingStored();
  });

  it("answers 401 to a signature older than five minutes by the app's clock, 202 to one just inside", async () => {
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    expect((await deliverRaw(ctx, payload, { timestamp: now - 301 })).statusCode).toBe(401);
    await nothingStored();
    // The same signature is refused once the clock has moved past the tolerance.
    const signedNow = JSON.stringify(detached("pm_refused_later"));
    ctx.clock.advance(301_000);
    try {
      expect((await deliverRaw(ctx, signedNow, { timestamp: now })).statusCode).toBe(401);
    } finally {
      ctx.clock.advance(-301_000);
    }
    await nothingStored();
    expect((await deliverRaw(ctx, signedNow, { timestamp: now - 299 })).statusCode).toBe(202);
    // Leave the table as the other refusals expect it: empty.
    for (const job of await eventJobs(ctx)) await removeQueuedJob(ctx.deps.db, job.id);
    await ctx.deps.db.deleteFrom("processor_events").execute();
  });

  it("answers 400 to a signed body that is not JSON, or JSON that is not an event", async () => {
    for (const body of ['{"id": "evt_1", "type": ', '{"hello": "world"}', "[1, 2]"]) {
      const response = await deliverRaw(ctx, body);
      expect(response.statusCode, body).toBe(400);
      expect(response.json()).toEqual({ error: "BadRequest", detail: "Invalid payload." });
    }
    await nothingStored();
  });

  it("answers 413 to a body over a megabyte, naming the route's limit", async () => {
    const event = stripeEvent("payment_method.detached", { id: "pm_big", object: "payment_method", padding: "x".repeat(1024 * 1024) });
    const response = await deliver(ctx, event);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      error: "RequestBodyTooLarge",
      detail: "Request body is too large. Max allowed size is 1048576 bytes.",
    });
    await nothingStored();
  });

  it("answers 400 to a body of another content type, even signed", async () => {
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded", "application/jsonx"]) {
      const response = await deliverRaw(ctx, JSON.stringify(detached("pm_text")), { headers: { "content-type": type } });
      expect(response.statusCode, type).toBe(400);
      expect(response.json()).toEqual({ error: "BadRequest", detail: "Content-Type must be application/json." });
    }
    await nothingStored();
  });

  it("acknowledges an event type it does not act on (202) and stores nothing", async () => {
    for (const type of ["customer.created", "charge.refunded", "invoice.paid"]) {
      const response = await deliver(ctx, stripeEvent(type, { id: "x_1", object: "thing" }));
      expect(response.statusCode, type).toBe(202);
      expect(response.body).toBe("");
    }
    await nothingStored();
  });

  it("does not exist (the plain 404) and is not documented when Stripe is not the processor", async () => {
    const sandboxDeps = { ...ctx.deps, config: testConfig() };
    const app = await buildApp(sandboxDeps, { logger: false, services: buildServices(sandboxDeps) });
    try {
      const response = await app.inject({ method: "POST", url: WEBHOOK_URL, payload: {} });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ detail: "Not Found" });
    } finally {
      await app.close();
    }
    const document = (await ctx.request({ method: "GET", url: "/openapi.json" })).json<{ paths: Record<string, unknown> }>();
    expect(document.paths[WEBHOOK_URL]).toBeUndefined();
  });
});

describe("POST /v1/integrations/stripe/webhook: each event once", () => {
  it("stores an event once and enqueues one job, however often it is delivered", async () => {
    const event = detached("pm_dedup");
    for (let i = 0; i < 3; i++) expect((await deliver(ctx, event)).statusCode).toBe(202);
    const stored = await storedEvents(ctx);
    expect(stored).toMatchObject([{ source: "stripe", external_id: event.id, type: "payment_method.detached", handled_at: null }]);
    expect(stored[0]!.payload).toEqual(event);
    expect((await eventJobs(ctx)).map((job) => job.payload)).toEqual([{ eventId: stored[0]!.id }]);

    await runEventJobs(ctx);
    expect((await storedEvents(ctx))[0]!.handled_at).toBeInstanceOf(Date);
    expect(await eventJobs(ctx)).toEqual([]);
    // A redelivery after it was handled: still nothing new.
    expect((await deliver(ctx, event)).statusCode).toBe(202);
    expect(await storedEvents(ctx)).toHaveLength(1);
    expect(await eventJobs(ctx)).toEqual([]);
  });

  it("lets one of several concurrent duplicates in: one row, one job", async () => {
    const event = detached("pm_race");
    const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(ctx, event)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(8).fill(202));
    const rows = (await storedEvents(ctx)).filter((row) => row.external_id === event.id);
    expect(rows).toHaveLength(1);
    expect((await eventJobs(ctx)).map((job) => job.payload)).toEqual([{ eventId: rows[0]!.id }]);
    await runEventJobs(ctx);
  });
});

describe("payment method events", () => {
  async function customerWithMethods(references: string[]) {
    const customer = await createCustomer(ctx.deps, orgId);
    const methods = [];
    for (const [index, reference] of references.entries()) {
      methods.push(
        await savePaymentMethod(ctx.deps.db, {
          organizationId: orgId,
          customerId: customer.id,
          method: { reference, type: "card", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030, customerReference: "cus_1" },
          now: new Date(ctx.clock.now().getTime() + index),
        }),
      );
    }
    await ctx.deps.db.updateTable("customers").set({ default_payment_method_id: methods[0]!.id }).where("id", "=", customer.id).execute();
    return { customer, methods };
  }
  const methodRow = (id: string) => ctx.deps.db.selectFrom("payment_methods").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const defaultOf = async (customerId: string) =>
    (await ctx.deps.db.selectFrom("customers").select("default_payment_method_id").where("id", "=", customerId).executeTakeFirstOrThrow())
      .default_payment_method_id;

  it("payment_method.detached deletes the saved method and moves the customer's default to another one", async () => {
    const { customer, methods } = await customerWithMethods(["pm_detach_a", "pm_detach_b"]);
    expect((await deliver(ctx, detached("pm_detach_a"))).statusCode).toBe(202);
    // Stored, not yet acted on: the job does that.
    expect((await methodRow(methods[0]!.id)).deleted_at).toBeNull();
    await runEventJobs(ctx);
    expect((await methodRow(methods[0]!.id)).deleted_at).toBeInstanceOf(Date);
    expect((await methodRow(methods[1]!.id)).deleted_at).toBeNull();
    expect(await defaultOf(customer.id)).toBe(methods[1]!.id);

    // The last method goes too (it cannot be charged any more), leaving no default.
    await deliver(ctx, detached("pm_detach_b"));
    await runEventJobs(ctx);
    expect((await methodRow(methods[1]!.id)).deleted_at).toBeInstanceOf(Date);
    expect(await defaultOf(customer.id)).toBeNull();
    const portalList = await ctx.deps.db
      .selectFrom("payment_methods")
      .select("id")
      .where("customer_id", "=", customer.id)
      .where("deleted_at", "is", null)
      .execute();
    expect(portalList).toEqual([]);
  });

  it("payment_method.automatically_updated refreshes the card's brand, last four digits and expiry", async () => {
    const { methods } = await customerWithMethods(["pm_updated"]);
    const event = stripeEvent("payment_method.automatically_updated", {
      id: "pm_updated",
      object: "payment_method",
      type: "card",
      customer: "cus_1",
      card: { brand: "mastercard", last4: "4444", exp_month: 3, exp_year: 2031 },
    });
    expect((await deliver(ctx, event)).statusCode).toBe(202);
    await runEventJobs(ctx);
    expect(await methodRow(methods[0]!.id)).toMatchObject({
      brand: "mastercard",
      last4: "4444",
      exp_month: 3,
      exp_year: 2031,
      deleted_at: null,
    });
  });
});
