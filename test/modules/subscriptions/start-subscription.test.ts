import { sql } from "kysely";
import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { addInterval } from "../../../src/values/calendar.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending } from "../../helpers/webhooks.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { eventsFor, openCheckoutThroughApi, writeCounts } from "../checkouts/checkout-helpers.ts";
import { BUYER, buyThroughCheckout } from "./subscription-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string };
let token: string;
let readToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [token, readToken],
  } = await openOrganizationContext(["checkouts:write"], ["subscriptions:read", "orders:read"]));
});
afterAll(() => ctx.close());
const { engine, receiver, closeReceivers } = deliveryHarness(() => ctx);
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});

const buyer = BUYER;
const buy = (productId: string, extra: Record<string, unknown> = {}) => buyThroughCheckout(ctx, token, productId, { checkout: extra });

const getSubscription = (id: string) => ctx.request({ method: "GET", url: `/v1/subscriptions/${id}`, token: readToken });

describe("a paid checkout of a recurring product", () => {
  it("starts an active subscription with its first order (subscription_create), linked both ways", async () => {
    const monthly = await createProduct(ctx.deps, org.id, {
      product: { name: "Monthly Pro", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1500 }],
      benefits: [{ type: "license_keys", description: "Key", properties: { expires: { ttl: 1, timeframe: "month" } } }],
    });
    const startedAt = ctx.clock.now();
    const { session, checkout } = await buy(monthly.product.id, { metadata: { plan: "pro" } });
    expect(checkout.status).toBe("succeeded");
    expect(checkout.subscription_id).toEqual(expect.any(String));

    const response = await getSubscription(checkout.subscription_id);
    expect(response.statusCode, response.body).toBe(200);
    const subscription = response.json();
    expectReferenceResponse("subscriptions:get", 200, subscription);
    expect(subscription).toMatchObject({
      id: checkout.subscription_id,
      status: "active",
      amount: 1500,
      currency: "usd",
      recurring_interval: "month",
      recurring_interval_count: 1,
      current_period_start: startedAt.toISOString(),
      current_period_end: addInterval(startedAt, "month", 1).toISOString(),
      started_at: startedAt.toISOString(),
      trial_start: null,
      trial_end: null,
      cancel_at_period_end: false,
      canceled_at: null,
      ends_at: null,
      ended_at: null,
      customer_id: checkout.customer_id,
      product_id: monthly.product.id,
      checkout_id: session.id,
      discount_id: null,
      metadata: { plan: "pro" },
      customer: { id: checkout.customer_id, email: "sub@example.com" },
      product: { id: monthly.product.id, name: "Monthly Pro", is_recurring: true },
      prices: [{ id: monthly.prices[0]!.id, amount_type: "fixed", price_amount: 1500 }],
      meters: [],
      pending_update: null,
    });

    const orders = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", session.id).execute();
    expect(orders).toEqual([
      expect.objectContaining({
        subscription_id: subscription.id,
        billing_reason: "subscription_create",
        status: "paid",
        net_amount: 1500,
      }),
    ]);
    const order = (await ctx.request({ method: "GET", url: `/v1/orders/${orders[0]!.id}`, token: readToken })).json();
    expect(order.subscription).toMatchObject({ id: subscription.id, status: "active", metadata: { plan: "pro" } });
    expect(order.subscription.customer).toBeUndefined();

    // The grant follows the subscription, and its license key lasts as long as the subscription does.
    const grants = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("order_id", "=", orders[0]!.id).execute();
    expect(grants).toEqual([expect.objectContaining({ subscription_id: subscription.id, granted_at: expect.any(Date) })]);
    const keys = await ctx.deps.db.selectFrom("license_keys").selectAll().where("customer_id", "=", checkout.customer_id).execute();
    expect(keys).toEqual([expect.objectContaining({ expires_at: null })]);

    // The anchor's order: the subscription's events, then the order's.
    const subscriptionEvents = await ctx.deps.db
      .selectFrom("webhook_events")
      .select("type")
      .where(sql<boolean>`payload->'data'->>'id' = ${subscription.id}`)
      .orderBy("position")
      .execute();
    expect(subscriptionEvents.map((event) => event.type)).toEqual(["subscription.created", "subscription.active", "subscription.updated"]);
    const all = await ctx.deps.db
      .selectFrom("webhook_events")
      .select("type")
      .where(sql<boolean>`payload->'data'->>'id' IN (${subscription.id}, ${order.id})`)
      .orderBy("position")
      .execute();
    expect(all.map((event) => event.type)).toEqual([
      "subscription.created",
      "subscription.active",
      "subscription.updated",
      "order.created",
      "order.paid",
    ]);
    expect(await eventsFor(ctx, session.id)).toContain("checkout.updated");
  });

  it("starts a trial: trialing until trial_end, the first period ending with it, a zero order, the discount not yet applied", async () => {
    const trial = await createProduct(ctx.deps, org.id, {
      product: {
        name: "Trial Plan",
        recurring_interval: "year",
        recurring_interval_count: 1,
        trial_interval: "day",
        trial_interval_count: 14,
      },
      prices: [{ amount_type: "fixed", price_amount: 12_000 }],
    });
    const discount = await createDiscount(ctx.deps, org.id, { basis_points: 2500, duration: "once" });
    const startedAt = ctx.clock.now();
    const { checkout } = await buy(trial.product.id, { discount_id: discount.id });
    const subscription = (await getSubscription(checkout.subscription_id)).json();
    expectReferenceResponse("subscriptions:get", 200, subscription);
    const trialEnd = addInterval(startedAt, "day", 14).toISOString();
    expect(subscription).toMatchObject({
      status: "trialing",
      trial_start: startedAt.toISOString(),
      trial_end: trialEnd,
      current_period_start: startedAt.toISOString(),
      current_period_end: trialEnd,
      recurring_interval: "year",
      // What each paid period will bill: the price less the discount.
      amount: 9000,
      discount_id: discount.id,
      discount: { id: discount.id },
    });
    const [order] = await ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", subscription.id).execute();
    expect(order).toMatchObject({ billing_reason: "subscription_create", total_amount: 0, receipt_number: null });
    const row = await ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscription.id).executeTakeFirstOrThrow();
    expect(row.discount_applied_at).toBeNull();
  });

  it("freezes the amounts it bills: a later price change of the product does not reprice it", async () => {
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "Frozen", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 700 }],
    });
    const { checkout } = await buy(plan.product.id);
    await ctx.deps.db.updateTable("product_prices").set({ price_amount: 900 }).where("id", "=", plan.prices[0]!.id).execute();
    const frozen = await ctx.deps.db
      .selectFrom("subscription_prices")
      .selectAll()
      .where("subscription_id", "=", checkout.subscription_id)
      .execute();
    expect(frozen).toEqual([expect.objectContaining({ product_price_id: plan.prices[0]!.id, amount: 700, position: 0 })]);
    expect((await getSubscription(checkout.subscription_id)).json().amount).toBe(700);
  });

  it("leaves one-time purchases without a subscription", async () => {
    const book = await createProduct(ctx.deps, org.id, { product: { name: "Book" } });
    const { checkout } = await buy(book.product.id);
    expect(checkout.subscription_id).toBeNull();
    const [order] = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkout.id).execute();
    expect(order).toMatchObject({ subscription_id: null, billing_reason: "purchase" });
  });

  it("writes the subscription in the order's transaction: an order that cannot be written leaves no subscription", async () => {
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "Doomed", recurring_interval: "month", recurring_interval_count: 1 },
    });
    const session = await openCheckoutThroughApi(ctx, token, { products: [plan.product.id] });
    // A trigger refuses this checkout's order, after the subscription row was inserted.
    await sql
      .raw(
        `CREATE FUNCTION refuse_order() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           IF NEW.checkout_id = '${session.id}' THEN RAISE EXCEPTION 'order refused by the test'; END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER refuse_order BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION refuse_order();`,
      )
      .execute(ctx.deps.db);
    try {
      const before = await writeCounts(ctx);
      const subscriptionsBefore = await ctx.deps.db
        .selectFrom("subscriptions")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      const response = await ctx.request({
        method: "POST",
        url: `/v1/checkouts/client/${session.client_secret}/confirm`,
        payload: { ...buyer, customer_email: "doomed@example.com", confirmation_token_id: "tok_visa" },
      });
      expect(response.statusCode).toBe(500);
      const subscriptionsAfter = await ctx.deps.db
        .selectFrom("subscriptions")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(subscriptionsAfter.n)).toBe(Number(subscriptionsBefore.n));
      const after = await writeCounts(ctx);
      // The confirmation itself committed first (status `confirmed`); nothing of the completion did.
      expect({ ...after, events: 0 }).toEqual({ ...before, events: 0 });
    } finally {
      await sql.raw("DROP TRIGGER refuse_order ON orders; DROP FUNCTION refuse_order();").execute(ctx.deps.db);
    }
  });
});

describe("the webhooks of a subscription's start", () => {
  it("reach an endpoint signed, each object's in the anchor's order, and the official SDK's validateEvent parses each", async () => {
    const organizationId = (await createOrganization(ctx.deps)).id;
    const writer = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write"]);
    const hook = await receiver();
    const types = ["subscription.created", "subscription.active", "subscription.updated", "order.created", "order.paid"] as const;
    const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: [...types] });
    const plan = await createProduct(ctx.deps, organizationId, {
      product: { name: "Hooked", recurring_interval: "week", recurring_interval_count: 2 },
    });
    const session = await openCheckoutThroughApi(ctx, writer, { products: [plan.product.id] });
    const confirmed = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${session.client_secret}/confirm`,
      payload: { ...buyer, confirmation_token_id: "tok_visa" },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    // In the anchor's order per object; the subscription's and the order's events are about two objects, sent side by side.
    const received: string[] = hook.received.map((request) => JSON.parse(request.body).type);
    expect(received.filter((type) => type.startsWith("subscription."))).toEqual(types.filter((type) => type.startsWith("subscription.")));
    expect(received.filter((type) => type.startsWith("order."))).toEqual(["order.created", "order.paid"]);
    expect([...received].sort()).toEqual([...types].sort());
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ctx.clock.now());
    for (const request of hook.received) {
      const event = await webhooks.validateEvent(request.body, request.headers, endpoint.secret);
      if (event.type.startsWith("subscription."))
        expect(event.data).toMatchObject({ status: "active", recurring_interval: "week", recurring_interval_count: 2 });
      else expect(event.data).toMatchObject({ billing_reason: "subscription_create" });
    }
  });
});
