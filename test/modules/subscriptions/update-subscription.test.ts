import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
  openOrganizationContext,
  registerForTax,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyThroughCheckout, eventTypesOf } from "./subscription-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string };
let checkoutToken: string;
let writeToken: string;
let readToken: string;
let otherOrgSubscription: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, writeToken, readToken],
  } = await openOrganizationContext(["checkouts:write"], ["subscriptions:write"], ["subscriptions:read"]));
  await registerForTax(ctx.deps, org.id);
  const other = await createOrganization(ctx.deps);
  otherOrgSubscription = (await createSubscription(ctx.deps, other.id)).id;
});
afterAll(() => ctx.close());

const DAY = 24 * 60 * 60 * 1000;
let buyers = 0;
/** A monthly plan with a license key, bought through a checkout: an active subscription with a saved card. */
async function subscribe(options: { trialDays?: number; amount?: number } = {}) {
  const plan = await createProduct(ctx.deps, org.id, {
    product: {
      name: `Plan ${(buyers += 1)}`,
      recurring_interval: "month",
      recurring_interval_count: 1,
      ...(options.trialDays ? { trial_interval: "day" as const, trial_interval_count: options.trialDays } : {}),
    },
    prices: [{ amount_type: "fixed", price_amount: options.amount ?? 1000 }],
    benefits: [{ type: "license_keys", description: "Key" }],
  });
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, {
    buyer: { customer_email: `buyer${buyers}@example.com` },
  });
  return { id: checkout.subscription_id, customerId: checkout.customer_id, productId: plan.product.id };
}
const patch = (id: string, payload: unknown, token = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/subscriptions/${id}`, token, payload: payload as Record<string, unknown> });
const patched = async (id: string, payload: unknown) => {
  const response = await patch(id, payload);
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("subscriptions:update", 200, response.json());
  return response.json();
};
const row = (id: string) => ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const keyStatus = async (customerId: string) =>
  (await ctx.deps.db.selectFrom("license_keys").select("status").where("customer_id", "=", customerId).executeTakeFirstOrThrow()).status;

describe("PATCH /v1/subscriptions/{id}: cancel, uncancel, revoke", () => {
  it("cancels at the period end with a reason and comment, keeps the benefits, and refuses a second cancel", async () => {
    const { id, customerId } = await subscribe();
    const before = await row(id);
    const body = await patched(id, {
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "Pricey",
    });
    expect(body).toMatchObject({
      status: "active",
      cancel_at_period_end: true,
      canceled_at: ctx.clock.now().toISOString(),
      ends_at: before.current_period_end.toISOString(),
      ended_at: null,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "Pricey",
    });
    expect(await keyStatus(customerId)).toBe("granted");
    expect((await eventTypesOf(ctx, id)).slice(-2)).toEqual(["subscription.updated", "subscription.canceled"]);
    const again = await patch(id, { cancel_at_period_end: true });
    expect(again.statusCode).toBe(403);
    expect(again.json()).toEqual({
      error: "AlreadyCanceledSubscription",
      detail: "This subscription is already canceled or will be at the end of the period.",
    });
  });

  it("uncancels a scheduled cancellation, and refuses to uncancel one that is not canceling (400) or has ended (410)", async () => {
    const { id } = await subscribe();
    const notCanceling = await patch(id, { cancel_at_period_end: false });
    expect(notCanceling.statusCode).toBe(400);
    expect(notCanceling.json()).toEqual({ error: "BadRequest", detail: "Bad request" });
    await patched(id, { cancel_at_period_end: true, customer_cancellation_reason: "unused" });
    const body = await patched(id, { cancel_at_period_end: false });
    expect(body).toMatchObject({ cancel_at_period_end: false, canceled_at: null, ends_at: null, customer_cancellation_reason: null });
    expect((await eventTypesOf(ctx, id)).slice(-2)).toEqual(["subscription.updated", "subscription.uncanceled"]);
    await patched(id, { revoke: true });
    const ended = await patch(id, { cancel_at_period_end: false });
    expect(ended.statusCode).toBe(410);
    expect(ended.json()).toEqual({ error: "ResourceUnavailable", detail: "Unavailable" });
  });

  it("revokes now (PATCH revoke and DELETE): canceled and ended, benefits revoked, the anchor's three events; a second revoke is a 403", async () => {
    const first = await subscribe();
    const body = await patched(first.id, { revoke: true, customer_cancellation_reason: "other", customer_cancellation_comment: "Bye" });
    const now = ctx.clock.now().toISOString();
    expect(body).toMatchObject({
      status: "canceled",
      canceled_at: now,
      ends_at: now,
      ended_at: now,
      customer_cancellation_reason: "other",
    });
    expect(await keyStatus(first.customerId)).toBe("revoked");
    expect((await eventTypesOf(ctx, first.id)).slice(-3)).toEqual([
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
    ]);
    expect((await patch(first.id, { revoke: true })).statusCode).toBe(403);

    const second = await subscribe();
    const deleted = await ctx.request({ method: "DELETE", url: `/v1/subscriptions/${second.id}`, token: writeToken });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expectReferenceResponse("subscriptions:revoke", 200, deleted.json());
    expect(deleted.json()).toMatchObject({ id: second.id, status: "canceled", ended_at: ctx.clock.now().toISOString() });
    const again = await ctx.request({ method: "DELETE", url: `/v1/subscriptions/${second.id}`, token: writeToken });
    expect(again.statusCode).toBe(403);
    expect(again.json().error).toBe("AlreadyCanceledSubscription");
  });
});

describe("PATCH /v1/subscriptions/{id}: other changes", () => {
  it("replaces the metadata, and answers {} with the subscription and a subscription.updated", async () => {
    const { id } = await subscribe();
    expect(await patched(id, { metadata: { seat: "A", tier: 2 } })).toMatchObject({ metadata: { seat: "A", tier: 2 } });
    expect(await patched(id, { metadata: { tier: 3 } })).toMatchObject({ metadata: { tier: 3 } });
    const events = (await eventTypesOf(ctx, id)).length;
    expect((await patched(id, {})).id).toBe(id);
    expect(await eventTypesOf(ctx, id)).toHaveLength(events + 1);
  });

  it("applies a discount now, billed from the next renewal; refuses the same one, a foreign one, and removes it with null", async () => {
    const { id } = await subscribe({ amount: 2000 });
    const discount = await createDiscount(ctx.deps, org.id, { basis_points: 1000, duration: "forever" });
    expect(await patched(id, { discount_id: discount.id })).toMatchObject({
      discount_id: discount.id,
      amount: 1800,
      discount: { id: discount.id },
    });
    const same = await patch(id, { discount_id: discount.id });
    expect(same.statusCode).toBe(422);
    expect(same.json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "discount_id"], msg: "This discount is already applied to the subscription." }),
    ]);
    const foreign = await createDiscount(ctx.deps, (await createOrganization(ctx.deps)).id);
    const refused = await patch(id, { discount_id: foreign.id });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0].msg).toBe("Discount does not exist, is not applicable to this product or is not redeemable.");

    ctx.clock.set((await row(id)).current_period_end);
    await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id });
    const orders = await ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", id).orderBy("created_at").execute();
    expect(orders.at(-1)).toMatchObject({ billing_reason: "subscription_cycle", subtotal_amount: 2000, discount_amount: 200 });
    expect(await patched(id, { discount_id: null })).toMatchObject({ discount_id: null, amount: 2000 });
  });

  it("moves the trial: an active subscription into a trial past its period, a trial ended now with its charge", async () => {
    const active = await subscribe();
    const periodEnd = (await row(active.id)).current_period_end;
    const early = await patch(active.id, { trial_end: new Date(periodEnd.getTime() - DAY).toISOString() });
    expect(early.statusCode).toBe(422);
    expect(early.json().detail[0]).toMatchObject({ loc: ["body", "trial_end"], msg: "Trial end must be after the current period end." });
    const notTrialing = await patch(active.id, { trial_end: "now" });
    expect(notTrialing.json().detail[0].msg).toBe("The subscription is not currently trialing.");
    const later = new Date(periodEnd.getTime() + 10 * DAY).toISOString();
    expect(await patched(active.id, { trial_end: later })).toMatchObject({
      status: "trialing",
      trial_end: later,
      current_period_end: later,
    });

    const trial = await subscribe({ trialDays: 14 });
    expect((await row(trial.id)).status).toBe("trialing");
    const converted = await patched(trial.id, { trial_end: "now" });
    expect(converted).toMatchObject({ status: "active", current_period_start: ctx.clock.now().toISOString() });
    const orders = await ctx.deps.db
      .selectFrom("orders")
      .selectAll()
      .where("subscription_id", "=", trial.id)
      .orderBy("created_at")
      .execute();
    expect(orders.map((order) => [order.billing_reason, order.status, order.total_amount])).toEqual([
      ["subscription_create", "paid", 0],
      ["subscription_cycle", "paid", 1200],
    ]);
  });

  it("sets the current period's end, refusing a past date and a canceling subscription", async () => {
    const { id } = await subscribe();
    const end = new Date(ctx.clock.now().getTime() + 45 * DAY);
    expect(await patched(id, { current_billing_period_end: end.toISOString() })).toMatchObject({ current_period_end: end.toISOString() });
    expect((await row(id)).anchor_day).toBe(end.getUTCDate());
    const past = await patch(id, { current_billing_period_end: new Date(ctx.clock.now().getTime() - DAY).toISOString() });
    expect(past.statusCode).toBe(422);
    await patched(id, { cancel_at_period_end: true });
    expect((await patch(id, { current_billing_period_end: end.toISOString() })).json().error).toBe("AlreadyCanceledSubscription");
  });

  it("pauses at the period end (no order, benefits revoked) and resumes with a fresh period charged at once", async () => {
    const { id, customerId } = await subscribe();
    const periodEnd = (await row(id)).current_period_end;
    const tooEarly = await patch(id, { pause_at_period_end: true, resumes_at: new Date(periodEnd.getTime() - 1000).toISOString() });
    expect(tooEarly.statusCode).toBe(422);
    expect(tooEarly.json().detail[0]).toMatchObject({
      loc: ["body", "resumes_at"],
      msg: "resumes_at must be after the current period end.",
    });
    expect((await patch(id, { pause_at_period_end: false })).json().error).toBe("NoScheduledPause");
    expect((await patch(id, { resume: true })).json().error).toBe("NotPausedSubscription");
    expect(await patched(id, { pause_at_period_end: true })).toMatchObject({ pause_at_period_end: true });
    expect((await patch(id, { pause_at_period_end: true })).json().error).toBe("CannotPauseSubscription");
    ctx.clock.set(periodEnd);
    await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id });
    expect(await row(id)).toMatchObject({ status: "paused", paused_at: periodEnd });
    expect(await keyStatus(customerId)).toBe("revoked");
    ctx.clock.advance(3 * DAY);
    const resumed = await patched(id, { resume: true });
    expect(resumed).toMatchObject({ status: "active", current_period_start: ctx.clock.now().toISOString(), paused_at: null });
    expect(await keyStatus(customerId)).toBe("granted");
    const orders = await ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", id).orderBy("created_at").execute();
    expect(orders.map((order) => [order.billing_reason, order.status])).toEqual([
      ["subscription_create", "paid"],
      ["subscription_cycle", "paid"],
    ]);
    expect(await eventTypesOf(ctx, id)).toContain("subscription.resumed");
  });

  it("refuses to clear a pending update when there is none", async () => {
    const { id } = await subscribe();
    const response = await patch(id, { pending_update: null });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({
      loc: ["body", "pending_update"],
      msg: "This subscription has no pending update to clear.",
    });
  });
});

describe("PATCH and DELETE: bad inputs", () => {
  let id: string;
  beforeAll(async () => {
    ({ id } = await subscribe());
  });
  const unchanged = async () => {
    expect(await row(id)).toMatchObject({ status: "active", cancel_at_period_end: false, metadata: {} });
  };
  const send = (options: { id?: () => string; payload?: unknown; token?: () => string | null; method?: "PATCH" | "DELETE" }) => () => ({
    method: options.method ?? ("PATCH" as const),
    url: `/v1/subscriptions/${options.id ? options.id() : id}`,
    token: options.token ? options.token() : writeToken,
    ...(options.method === "DELETE" ? {} : { payload: (options.payload ?? {}) as Record<string, unknown> }),
  });
  badInputTable(
    () => ctx.request,
    [
      {
        name: "a body mixing a cancel and a revoke",
        request: send({ payload: { cancel_at_period_end: true, revoke: true } }),
        status: 422,
      },
      { name: "an unknown field", request: send({ payload: { color: "red" } }), status: 422 },
      { name: "a non-boolean cancel_at_period_end", request: send({ payload: { cancel_at_period_end: "yes" } }), status: 422 },
      {
        name: "an unknown cancellation reason",
        request: send({ payload: { cancel_at_period_end: true, customer_cancellation_reason: "bored" } }),
        status: 422,
      },
      {
        name: "an overlong comment",
        request: send({ payload: { cancel_at_period_end: true, customer_cancellation_comment: "x".repeat(1001) } }),
        status: 422,
      },
      { name: "revoke false", request: send({ payload: { revoke: false } }), status: 422 },
      { name: "a non-UUID discount_id", request: send({ payload: { discount_id: "ten-off" } }), status: 422 },
      { name: "a trial_end that is not a date", request: send({ payload: { trial_end: "tomorrow" } }), status: 422 },
      { name: "zero seats", request: send({ payload: { seats: 0 } }), status: 422 },
      { name: "seats as a string", request: send({ payload: { seats: "3" } }), status: 422 },
      { name: "seats with a product", request: send({ payload: { seats: 3, product_id: randomUUID() } }), status: 422 },
      { name: "a non-UUID product_id", request: send({ payload: { product_id: "pro-plan" } }), status: 422 },
      { name: "an unknown proration behavior", request: send({ payload: { seats: 2, proration_behavior: "later" } }), status: 422 },
      { name: "a non-UUID id", request: send({ id: () => "sub_1" }), status: 422, loc: ["path", "id"] },
      {
        name: "an unknown id",
        request: send({ id: () => randomUUID(), payload: { revoke: true } }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's subscription",
        request: send({ id: () => otherOrgSubscription, payload: { revoke: true } }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "DELETE of another organization's subscription",
        request: send({ id: () => otherOrgSubscription, method: "DELETE" }),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "no token", request: send({ token: () => null, payload: { revoke: true } }), status: 401 },
      {
        name: "a read-only token",
        request: send({ token: () => readToken, payload: { revoke: true } }),
        status: 403,
        error: "insufficient_scope",
      },
      {
        name: "DELETE with a read-only token",
        request: send({ token: () => readToken, method: "DELETE" }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
    unchanged,
  );
});

describe("POST /v1/subscriptions/", () => {
  it("subscribes a customer to a free recurring product: active at once, without an order", async () => {
    const free = await createProduct(ctx.deps, org.id, {
      product: { name: "Free tier", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "free", price_amount: null }],
    });
    const customer = await createCustomer(ctx.deps, org.id, { external_id: "free-ext" });
    const response = await ctx.request({
      method: "POST",
      url: "/v1/subscriptions/",
      token: writeToken,
      payload: { product_id: free.product.id, external_customer_id: "free-ext", metadata: { source: "api" } },
    });
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("subscriptions:create", 201, response.json());
    expect(response.json()).toMatchObject({
      status: "active",
      amount: 0,
      customer_id: customer.id,
      product_id: free.product.id,
      metadata: { source: "api" },
    });
    expect(await ctx.deps.db.selectFrom("orders").select("id").where("subscription_id", "=", response.json().id).execute()).toEqual([]);
  });

  const create =
    (payload: () => Record<string, unknown>, token: () => string | null = () => writeToken) =>
    () => ({
      method: "POST" as const,
      url: "/v1/subscriptions/",
      token: token(),
      payload: payload(),
    });
  let paid: string;
  let oneTime: string;
  let foreignProduct: string;
  let customerId: string;
  beforeAll(async () => {
    paid = (await createProduct(ctx.deps, org.id, { product: { recurring_interval: "month", recurring_interval_count: 1 } })).product.id;
    oneTime = (await createProduct(ctx.deps, org.id, { prices: [{ amount_type: "free", price_amount: null }] })).product.id;
    const other = await createOrganization(ctx.deps);
    foreignProduct = (await createProduct(ctx.deps, other.id, { product: { recurring_interval: "month", recurring_interval_count: 1 } }))
      .product.id;
    customerId = (await createCustomer(ctx.deps, org.id)).id;
  });
  const message = (msg: string) => ({ status: 422, loc: ["body", "product_id"] as string[], msg });
  badInputTable(
    () => ctx.request,
    [
      { name: "a paid product", request: create(() => ({ product_id: paid, customer_id: customerId })), ...message("paid") },
      { name: "a one-time product", request: create(() => ({ product_id: oneTime, customer_id: customerId })), ...message("one-time") },
      {
        name: "another organization's product",
        request: create(() => ({ product_id: foreignProduct, customer_id: customerId })),
        ...message("foreign"),
      },
      { name: "an unknown customer", request: create(() => ({ product_id: paid, customer_id: randomUUID() })), status: 422 },
      {
        name: "both customer_id and external_customer_id",
        request: create(() => ({ product_id: paid, customer_id: customerId, external_customer_id: "x" })),
        status: 422,
      },
      { name: "no customer", request: create(() => ({ product_id: paid })), status: 422 },
      {
        name: "a read-only token",
        request: create(
          () => ({ product_id: paid, customer_id: customerId }),
          () => readToken,
        ),
        status: 403,
      },
      {
        name: "no token",
        request: create(
          () => ({ product_id: paid, customer_id: customerId }),
          () => null,
        ),
        status: 401,
      },
    ].map(({ msg: _msg, ...rest }: { msg?: string } & Record<string, unknown>) => rest as never),
  );

  it("names the reason a product cannot be subscribed to through the API", async () => {
    const post = (payload: Record<string, unknown>) =>
      ctx.request({ method: "POST", url: "/v1/subscriptions/", token: writeToken, payload });
    expect((await post({ product_id: paid, customer_id: customerId })).json().detail[0].msg).toBe(
      "Product is not free. The customer should go through a checkout to create a paid subscription.",
    );
    expect((await post({ product_id: oneTime, customer_id: customerId })).json().detail[0].msg).toBe("Product is not a recurring product.");
    expect((await post({ product_id: foreignProduct, customer_id: customerId })).json().detail[0].msg).toBe("Product does not exist.");
    const free = await createProduct(ctx.deps, org.id, {
      product: { recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "free", price_amount: null }],
    });
    const unknown = await post({ product_id: free.product.id, customer_id: randomUUID() });
    expect(unknown.json().detail[0]).toMatchObject({ loc: ["body", "customer_id"], msg: "Customer does not exist." });
  });
});

describe("GET /v1/subscriptions/export", () => {
  it("writes a CSV of the filtered subscriptions in the chosen columns and time zone, escaping formula cells", async () => {
    const exportOrg = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, exportOrg.id, ["subscriptions:read"]);
    const customer = await createCustomer(ctx.deps, exportOrg.id, { email: "csv@example.com", name: "=HYPERLINK(1)" });
    const plan = await createProduct(ctx.deps, exportOrg.id, {
      product: { name: "CSV, plan", recurring_interval: "year", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 9900 }],
    });
    await createSubscription(ctx.deps, exportOrg.id, { customer, product: plan, now: new Date("2027-01-15T23:30:00.000Z") });
    const get = (query: string) => ctx.request({ method: "GET", url: `/v1/subscriptions/export${query}`, token });
    const defaults = await get("");
    expect(defaults.statusCode).toBe(200);
    expect(defaults.headers["content-type"]).toContain("text/csv");
    expect(defaults.body).toBe(
      'email,started_at,product,amount,currency,status,recurring_interval\ncsv@example.com,2027-01-15 23:30:00,"CSV, plan",9900,usd,active,year\n',
    );
    const chosen = await get("?columns=customer_name&columns=started_at&timezone=Asia/Tokyo");
    expect(chosen.body).toBe("customer_name,started_at\n'=HYPERLINK(1),2027-01-16 08:30:00\n");
    expect((await get("?status=canceled")).body).toBe("email,started_at,product,amount,currency,status,recurring_interval\n");
    const badZone = await get("?timezone=Mars/Olympus");
    expect(badZone.statusCode).toBe(422);
    expect(badZone.json().detail[0].loc).toEqual(["query", "timezone"]);
    expect((await get("?columns=favourite_color")).statusCode).toBe(422);
    expect((await get("?status=frozen")).statusCode).toBe(422);
    expect((await get("?started_after=yesterday")).statusCode).toBe(422);
    expect((await get("?product_id=plan")).statusCode).toBe(422);
    expect((await ctx.request({ method: "GET", url: "/v1/subscriptions/export", token: null })).statusCode).toBe(401);
    const productsOnly = await createOrganizationToken(ctx.deps, exportOrg.id, ["products:read"]);
    expect((await ctx.request({ method: "GET", url: "/v1/subscriptions/export", token: productsOnly })).statusCode).toBe(403);
    // Another organization's token sees none of these rows.
    expect((await ctx.request({ method: "GET", url: "/v1/subscriptions/export", token: readToken })).body).not.toContain("csv@example.com");
  });
});

describe("changes racing renewals", () => {
  it("revoking during a renewal neither charges nor leaves a pending order", async () => {
    for (let round = 0; round < 5; round += 1) {
      const { id } = await subscribe();
      ctx.clock.set((await row(id)).current_period_end);
      const [, revoked] = await Promise.all([
        ctx.services.subscriptionRenewals.sweep({ organizationId: org.id }),
        patch(id, { revoke: true }),
      ]);
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect((await row(id)).status).toBe("canceled");
      const orders = await ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", id).execute();
      expect(orders.filter((order) => order.status === "pending")).toEqual([]);
      // A renewal order is either paid (the renewal finished first) or void (the revoke came first): then nothing was charged.
      for (const order of orders.filter((order) => order.billing_reason === "subscription_cycle")) {
        const charged = await ctx.deps.db
          .selectFrom("payments")
          .selectAll()
          .where("order_id", "=", order.id)
          .where("status", "=", "succeeded")
          .execute();
        expect(charged.length).toBe(order.status === "paid" ? 1 : 0);
      }
    }
  });

  it("a cancel racing a renewal leaves a consistent subscription: renewed then canceling, or canceling then ended", async () => {
    const { id } = await subscribe();
    const end = (await row(id)).current_period_end;
    ctx.clock.set(end);
    const [, canceled] = await Promise.all([
      ctx.services.subscriptionRenewals.sweep({ organizationId: org.id }),
      patch(id, { cancel_at_period_end: true }),
    ]);
    const after = await row(id);
    if (canceled.statusCode === 200 && after.status === "canceled") {
      // The cancel landed first: the renewal ended it instead of renewing.
      expect(after.ended_at).toEqual(end);
    } else {
      expect(canceled.statusCode).toBe(200);
      expect(after).toMatchObject({ status: "active", cancel_at_period_end: true, ends_at: after.current_period_end });
      expect(after.current_period_start).toEqual(end);
    }
  });
});
