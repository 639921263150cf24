import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.ts";
import { createPrometheusMetrics } from "../../src/observability/prometheus-metrics.ts";
import type { TestContext } from "../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, registerForTax } from "../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "../modules/checkouts/checkout-helpers.ts";
import { licensedProduct, payCheckout, runEmailJobs } from "../modules/emails/email-helpers.ts";
import { aggregateMeters, ingest } from "../modules/meters/meters-helpers.ts";
import { buyThroughCheckout } from "../modules/subscriptions/subscription-helpers.ts";
import { scrapeMetrics, valueOf } from "./scrape.ts";

// Each counter moved by the real route or job that does the work, read back from `/metrics`.

const METRICS_TOKEN = "scrape-me-0123456789abcdef";

let smtp: TestSmtpServer;
let ctx: TestContext;
let app: FastifyInstance;
let org: { id: string };
let token: string;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext({ METRICS_TOKEN }));
  app = await buildApp(ctx.deps, {
    logger: false,
    services: ctx.services,
    metrics: createPrometheusMetrics(ctx.deps.db, ctx.database.pool),
  });
  org = await createOrganization(ctx.deps);
  await registerForTax(ctx.deps, org.id);
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write", "meters:write", "events:write"]);
});
afterAll(async () => {
  await app.close();
  await stopMailingContext({ ctx, smtp });
});

/** The values of `series` (names with their labels) now; `changes` then gives each one's change since. */
async function counters(series: string[]) {
  const read = async () => {
    const text = await scrapeMetrics(app, METRICS_TOKEN);
    return series.map((name) => {
      const value = valueOf(text, name);
      expect(value, name).toBeDefined();
      return value!;
    });
  };
  const before = await read();
  return {
    changes: async () => Object.fromEntries((await read()).map((value, index) => [series[index]!, value - before[index]!])),
  };
}

const DECLINED = "tok_chargeDeclined";

describe("checkout confirms by result", () => {
  it("counts a paid confirm, a declined card and a confirm refused before any charge, each under its result", async () => {
    const result = (name: string) => `checkout_confirms_total{result="${name}"}`;
    const watched = await counters(["succeeded", "payment_failed", "rejected", "requires_action", "error"].map(result));
    const product = await createProduct(ctx.deps, org.id);
    const confirm = (secret: string, payload: object) =>
      ctx.request({ method: "POST", url: `/v1/checkouts/client/${secret}/confirm`, payload });
    const buyer = { customer_email: "buyer@example.com", customer_name: "Ada", customer_billing_address: FR_ADDRESS };
    const paid = await openCheckoutThroughApi(ctx, token, { products: [product.product.id] });
    expect((await confirm(paid.client_secret, { ...buyer, confirmation_token_id: "tok_visa" })).statusCode).toBe(200);
    const declined = await openCheckoutThroughApi(ctx, token, { products: [product.product.id] });
    expect((await confirm(declined.client_secret, { ...buyer, confirmation_token_id: DECLINED })).statusCode).toBe(400);
    // Refused before any charge: a session without the buyer's email, and one completed already.
    const { customer_email: _email, ...withoutEmail } = buyer;
    const unnamed = await openCheckoutThroughApi(ctx, token, { products: [product.product.id] });
    expect((await confirm(unnamed.client_secret, { ...withoutEmail, confirmation_token_id: "tok_visa" })).statusCode).toBe(422);
    const again = await confirm(paid.client_secret, { ...buyer, confirmation_token_id: "tok_visa" });
    expect(again.statusCode, again.body).toBeGreaterThanOrEqual(400);
    expect(again.statusCode).toBeLessThan(500);

    expect(await watched.changes()).toEqual({
      [result("succeeded")]: 1,
      [result("payment_failed")]: 1,
      [result("rejected")]: 2,
      [result("requires_action")]: 0,
      [result("error")]: 0,
    });
  });
});

describe("email sends by result", () => {
  it("counts the sent, the refused for good and the deferred by the send job", async () => {
    const result = (name: string) => `email_sends_total{result="${name}"}`;
    const product = await licensedProduct(ctx, org.id, "Mailed");
    // The emails of the other tests' purchases sent first.
    await runEmailJobs(ctx);
    smtp.refused.add("gone@example.com");
    smtp.deferred.add("busy@example.com");
    for (const email of ["ada@example.com", "gone@example.com", "busy@example.com"])
      await payCheckout(ctx, token, product.product.id, { email });
    const watched = await counters(["sent", "failed", "retrying"].map(result));
    await runEmailJobs(ctx);
    expect(await watched.changes()).toEqual({ [result("sent")]: 1, [result("failed")]: 1, [result("retrying")]: 1 });
    expect(valueOf(await scrapeMetrics(app, METRICS_TOKEN), 'emails_unsent{status="failed"}')).toBe(1);
  });
});

describe("events ingested and the meters' aggregation lag", () => {
  it("counts inserted and repeated events, and reads how long the oldest unaggregated one has waited until the job runs", async () => {
    const result = (name: string) => `events_ingested_total{result="${name}"}`;
    const created = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token,
      payload: {
        name: "Calls",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "call" }] },
        aggregation: { func: "count" },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    await aggregateMeters(ctx);
    expect(valueOf(await scrapeMetrics(app, METRICS_TOKEN), "meter_aggregation_lag_seconds")).toBe(0);

    const watched = await counters([result("inserted"), result("duplicate")]);
    const event = (id: string) => ({ name: "call", external_customer_id: "lag-customer", external_id: id });
    expect(await ingest(ctx, token, [event("a"), event("b"), event("c")])).toEqual({ inserted: 3, duplicates: 0 });
    expect(await ingest(ctx, token, [event("a"), event("d")])).toEqual({ inserted: 1, duplicates: 1 });
    expect(await watched.changes()).toEqual({ [result("inserted")]: 4, [result("duplicate")]: 1 });

    // Unaggregated for a second and more, then caught up by the job's run.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(valueOf(await scrapeMetrics(app, METRICS_TOKEN), "meter_aggregation_lag_seconds")).toBeGreaterThanOrEqual(1);
    await aggregateMeters(ctx);
    expect(valueOf(await scrapeMetrics(app, METRICS_TOKEN), "meter_aggregation_lag_seconds")).toBe(0);
  });
});

describe("subscription renewals by result", () => {
  it("counts a renewal paid, one whose charge is declined, and one stopped by an error, from the renewal sweep", async () => {
    const result = (name: string) => `subscription_renewals_total{result="${name}"}`;
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "Monthly", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 2000 }],
    });
    const buy = async (email: string, card: string) =>
      (await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: email }, card })).checkout.subscription_id;
    const paying = await buy("pays@example.com", "tok_visa");
    // Set up fine at the checkout; every later charge is declined.
    const declining = await buy("declines@example.com", "tok_chargeCustomerFail");
    const periodEnd = async (id: string) =>
      (await ctx.deps.db.selectFrom("subscriptions").select("current_period_end").where("id", "=", id).executeTakeFirstOrThrow())
        .current_period_end;

    const watched = await counters(["renewed", "payment_failed", "error"].map(result));
    ctx.clock.set(new Date(Math.max((await periodEnd(paying)).getTime(), (await periodEnd(declining)).getTime())));
    await ctx.services.subscriptionRenewals.sweep();
    expect(await watched.changes()).toEqual({ [result("renewed")]: 1, [result("payment_failed")]: 1, [result("error")]: 0 });
    expect(
      (await ctx.deps.db.selectFrom("subscriptions").select("status").where("id", "=", declining).executeTakeFirstOrThrow()).status,
    ).toBe("past_due");

    // The next period's renewal of the paying one, with every order insert refused by the database.
    await sql
      .raw(
        `CREATE FUNCTION refuse_order() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
         CREATE TRIGGER refuse_order BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION refuse_order();`,
      )
      .execute(ctx.deps.db);
    try {
      ctx.clock.set(await periodEnd(paying));
      await expect(ctx.services.subscriptionRenewals.sweep()).rejects.toThrow(/refused/);
    } finally {
      await sql.raw("DROP TRIGGER refuse_order ON orders; DROP FUNCTION refuse_order();").execute(ctx.deps.db);
    }
    expect((await watched.changes())[result("error")]).toBeGreaterThanOrEqual(1);
  });
});
