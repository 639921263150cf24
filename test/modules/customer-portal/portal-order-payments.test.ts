import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import type { PaymentProcessor } from "../../../src/adapters/payment-processors/payment-processor.ts";
import { tryLockOrderPayment } from "../../../src/modules/payments/payments.repository.ts";
import { sandboxProcessor } from "../../../src/adapters/payment-processors/sandbox.processor.ts";
import { buildServices } from "../../../src/services.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrder,
  createOrganization,
  openOrganizationContext,
  registerForTax,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { orderOf, paymentsOf, renewedSubscription, subscriptionOf } from "./payment-helpers.ts";

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken],
  } = await openOrganizationContext(["checkouts:write"]));
  await registerForTax(ctx.deps, org.id);
});
afterAll(() => ctx.close());

const SECOND = 1000;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";
const statusUrl = (orderId: string) => `/v1/customer-portal/orders/${orderId}/payment-status`;
const confirmUrl = (orderId: string) => `/v1/customer-portal/orders/${orderId}/confirm-payment`;
const confirm = (session: string, orderId: string, payload: Record<string, unknown>) =>
  ctx.request({ method: "POST", url: confirmUrl(orderId), token: session, payload });
const status = (session: string, orderId: string) => ctx.request({ method: "GET", url: statusUrl(orderId), token: session });
const saveCard = async (session: string, token: string): Promise<string> => {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/customer-portal/customers/me/payment-methods",
    token: session,
    payload: { confirmation_token_id: token, set_default: false, return_url: "https://shop.test" },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().payment_method.id;
};

describe("GET /v1/customer-portal/orders/{id}/payment-status", () => {
  it("answers the latest attempt's status and decline message, and no_payment before any", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "status@example.com");
    const response = await status(bought.session, bought.orderId);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("customer_portal:orders:get_payment_status", 200, response.json());
    expect(response.json()).toEqual({ status: "failed", error: "Your card was declined." });

    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", bought.customerId).executeTakeFirstOrThrow();
    const unpaid = await createOrder(ctx.deps, org.id, { customer, values: { status: "pending" } });
    expect((await status(bought.session, unpaid.id)).json()).toEqual({ status: "no_payment", error: null });

    ctx.clock.advance(SECOND);
    const card = await saveCard(bought.session, "tok_visa");
    expect((await confirm(bought.session, bought.orderId, { payment_method_id: card })).json().status).toBe("succeeded");
    expect((await status(bought.session, bought.orderId)).json()).toEqual({ status: "succeeded", error: null });
  });
});

describe("POST /v1/customer-portal/orders/{id}/confirm-payment", () => {
  it("charges the due amount on a saved method: 200 succeeded, order paid, subscription active on that method", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-saved@example.com");
    ctx.clock.advance(SECOND);
    const card = await saveCard(bought.session, "tok_mastercard");
    const response = await confirm(bought.session, bought.orderId, { payment_method_id: card, payment_processor: "stripe" });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("customer_portal:orders:confirm_retry_payment", 200, response.json());
    expect(response.json()).toEqual({ status: "succeeded", client_secret: null, error: null });
    expect(await orderOf(ctx, bought.orderId)).toMatchObject({ status: "paid", next_payment_attempt_at: null });
    expect(await subscriptionOf(ctx, bought.subscriptionId)).toMatchObject({ status: "active", payment_method_id: card });
    const payments = await paymentsOf(ctx, bought.orderId);
    expect(payments.map((payment) => [payment.trigger, payment.status, payment.amount, payment.payment_method_id])).toEqual([
      ["subscription_cycle", "failed", 2400, expect.any(String)],
      ["retry_customer", "succeeded", 2400, card],
    ]);
  });

  it("charges a new card from a confirmation token, saving it", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-token@example.com");
    ctx.clock.advance(SECOND);
    const response = await confirm(bought.session, bought.orderId, { confirmation_token_id: "tok_amex" });
    expect(response.json()).toEqual({ status: "succeeded", client_secret: null, error: null });
    const saved = await ctx.deps.db
      .selectFrom("payment_methods")
      .selectAll()
      .where("customer_id", "=", bought.customerId)
      .where("brand", "=", "amex")
      .executeTakeFirstOrThrow();
    expect(await subscriptionOf(ctx, bought.subscriptionId)).toMatchObject({ status: "active", payment_method_id: saved.id });
    expect((await paymentsOf(ctx, bought.orderId)).at(-1)).toMatchObject({ trigger: "retry_customer", payment_method_id: saved.id });
  });

  it("answers a decline as status failed (not an HTTP error), without advancing dunning", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-declined@example.com");
    const before = await orderOf(ctx, bought.orderId);
    const subscriptionBefore = await subscriptionOf(ctx, bought.subscriptionId);
    ctx.clock.advance(SECOND);
    const declined = await confirm(bought.session, bought.orderId, { confirmation_token_id: "tok_chargeDeclined" });
    expect(declined.statusCode, declined.body).toBe(200);
    expectReferenceResponse("customer_portal:orders:confirm_retry_payment", 200, declined.json());
    expect(declined.json()).toEqual({ status: "failed", client_secret: null, error: "Your card was declined." });
    const failingCard = await saveCard(bought.session, "tok_chargeCustomerFail");
    ctx.clock.advance(SECOND);
    expect((await confirm(bought.session, bought.orderId, { payment_method_id: failingCard })).json()).toMatchObject({ status: "failed" });

    expect(await orderOf(ctx, bought.orderId)).toMatchObject({
      status: "pending",
      next_payment_attempt_at: before.next_payment_attempt_at,
    });
    // The subscription keeps the method it had: only a successful retry moves it.
    expect(await subscriptionOf(ctx, bought.subscriptionId)).toMatchObject({
      status: "past_due",
      payment_method_id: subscriptionBefore.payment_method_id,
    });
    expect((await paymentsOf(ctx, bought.orderId)).map((payment) => [payment.trigger, payment.status])).toEqual([
      ["subscription_cycle", "failed"],
      ["retry_customer", "failed"],
      ["retry_customer", "failed"],
    ]);
    // The next dunning retry still comes on its day, counting only dunning's own failures.
    ctx.clock.set(before.next_payment_attempt_at!);
    await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id });
    const after = await orderOf(ctx, bought.orderId);
    expect(after.next_payment_attempt_at!.getTime() - before.next_payment_attempt_at!.getTime()).toBe(5 * 24 * 3600 * 1000);
  });

  it("refuses a sixth customer retry with 429 ManualRetryLimitExceeded", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-limit@example.com");
    for (let attempt = 0; attempt < 5; attempt += 1) {
      ctx.clock.advance(SECOND);
      expect((await confirm(bought.session, bought.orderId, { confirmation_token_id: "tok_chargeDeclined" })).json().status).toBe("failed");
    }
    const refused = await confirm(bought.session, bought.orderId, { confirmation_token_id: "tok_visa" });
    expect(refused.statusCode).toBe(429);
    expectReferenceResponse("customer_portal:orders:confirm_retry_payment", 429, refused.json());
    expect(refused.json()).toEqual({
      error: "ManualRetryLimitExceeded",
      detail: `Maximum number of manual payment retry attempts has been reached for order ${bought.orderId}.`,
    });
    expect(await orderOf(ctx, bought.orderId)).toMatchObject({ status: "pending" });
  });

  it("answers 409 PaymentAlreadyInProgress, at once, while another request holds the order's payment lock", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-busy@example.com");
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let taken = () => {};
    const held = new Promise<void>((resolve) => (taken = resolve));
    const holder = ctx.deps.db.transaction().execute(async (trx) => {
      expect(await tryLockOrderPayment(trx, bought.orderId)).toBe(true);
      taken();
      await released;
    });
    await held;
    try {
      const refused = await confirm(bought.session, bought.orderId, { confirmation_token_id: "tok_visa" });
      expect(refused.statusCode).toBe(409);
      expectReferenceResponse("customer_portal:orders:confirm_retry_payment", 409, refused.json());
      expect(refused.json()).toEqual({
        error: "PaymentAlreadyInProgress",
        detail: `Payment for order ${bought.orderId} is already in progress`,
      });
    } finally {
      release();
      await holder;
    }
    expect((await paymentsOf(ctx, bought.orderId)).filter((payment) => payment.trigger === "retry_customer")).toEqual([]);
  });

  it("charges once when two retries arrive at the same time: the second finds the first holding the order (409)", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-race@example.com");
    ctx.clock.advance(SECOND);
    const card = await saveCard(bought.session, "tok_visa");
    // A processor that answers only when told keeps the first attempt open while the second arrives.
    let charges = 0;
    let charging = () => {};
    const charged = new Promise<void>((resolve) => (charging = resolve));
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const held: PaymentProcessor = {
      ...sandboxProcessor,
      chargeOnSession: async (request) => {
        charges += 1;
        charging();
        await answered;
        return sandboxProcessor.chargeOnSession(request);
      },
    };
    const app = await buildApp(ctx.deps, { logger: false, services: buildServices(ctx.deps, { payments: held }) });
    try {
      const send = () =>
        app.inject({
          method: "POST",
          url: confirmUrl(bought.orderId),
          headers: { authorization: `Bearer ${bought.session}` },
          payload: { payment_method_id: card },
        });
      const first = send();
      await charged;
      const second = await send();
      expect(second.statusCode, second.body).toBe(409);
      expect(second.json().error).toBe("PaymentAlreadyInProgress");
      answer();
      const firstResponse = await first;
      expect(firstResponse.statusCode).toBe(200);
      expect(firstResponse.json()).toMatchObject({ status: "succeeded" });
    } finally {
      answer();
      await app.close();
    }
    expect(charges).toBe(1);
    const retries = (await paymentsOf(ctx, bought.orderId)).filter((payment) => payment.trigger === "retry_customer");
    expect(retries.map((payment) => payment.status)).toEqual(["succeeded"]);
    expect(await orderOf(ctx, bought.orderId)).toMatchObject({ status: "paid" });
  });

  it("charges once when two retries are sent at the same instant", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-burst@example.com");
    ctx.clock.advance(SECOND);
    const card = await saveCard(bought.session, "tok_visa");
    const responses = await Promise.all([1, 2].map(() => confirm(bought.session, bought.orderId, { payment_method_id: card })));
    const outcomes = responses.map((response) => (response.statusCode === 200 ? response.json().status : response.json().error)).sort();
    expect(outcomes[1]).toBe("succeeded");
    expect(["OrderNotEligibleForRetry", "PaymentAlreadyInProgress"]).toContain(outcomes[0]);
    expect((await paymentsOf(ctx, bought.orderId)).filter((payment) => payment.trigger === "retry_customer")).toHaveLength(1);
  });

  it("answers 422 OrderNotEligibleForRetry for an order dunning is not chasing (paid, one-time), before any other check", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-paid@example.com", "tok_visa");
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", bought.customerId).executeTakeFirstOrThrow();
    const oneTime = await createOrder(ctx.deps, org.id, { customer, values: { status: "pending" } });
    for (const orderId of [bought.orderId, oneTime.id]) {
      const refused = await confirm(bought.session, orderId, { payment_method_id: UNKNOWN });
      expect(refused.statusCode).toBe(422);
      expectReferenceResponse("customer_portal:orders:confirm_retry_payment", 422, refused.json());
      expect(refused.json()).toEqual({ error: "OrderNotEligibleForRetry", detail: `Order ${orderId} is not eligible for payment retry.` });
    }
  });

  it("answers 422 PaymentRetryValidationError for a method that is not the customer's", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-foreign@example.com");
    const other = await createCustomer(ctx.deps, org.id);
    const foreignCard = await saveCard(await createCustomerSessionToken(ctx.deps, other.id), "tok_visa");
    const refused = await confirm(bought.session, bought.orderId, { payment_method_id: foreignCard });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({ error: "PaymentRetryValidationError", detail: "Payment method does not belong to customer" });
    expect((await paymentsOf(ctx, bought.orderId)).filter((payment) => payment.trigger === "retry_customer")).toEqual([]);
  });

  // A past-due order of the table's customer, the order of another customer of the organization and
  // one of another organization; each case opens its session just before it, as the clock moves on.
  let chased = { customerId: "", orderId: "" };
  let neighbourOrder = "";
  let foreignOrder = "";
  let session = "";
  beforeAll(async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "retry-table@example.com");
    chased = { customerId: bought.customerId, orderId: bought.orderId };
    neighbourOrder = (await renewedSubscription(ctx, org, checkoutToken, "retry-neighbour@example.com")).orderId;
    const otherOrg = await createOrganization(ctx.deps);
    foreignOrder = (await createOrder(ctx.deps, otherOrg.id, { values: { status: "pending" } })).id;
  });
  beforeEach(async () => {
    if (chased.customerId) session = await createCustomerSessionToken(ctx.deps, chased.customerId);
  });
  const post =
    (orderId: () => string, payload: unknown, token: () => string | null = () => session) =>
    () => ({
      method: "POST" as const,
      url: confirmUrl(orderId()),
      token: token(),
      payload: payload as Record<string, unknown>,
    });
  badInputTable(
    () => ctx.request,
    [
      { name: "neither a token nor a method", request: post(() => chased.orderId, {}), status: 422, loc: ["body"] },
      {
        name: "both a token and a method",
        request: post(() => chased.orderId, { confirmation_token_id: "tok_visa", payment_method_id: UNKNOWN }),
        status: 422,
        loc: ["body"],
      },
      {
        name: "a non-UUID payment method",
        request: post(() => chased.orderId, { payment_method_id: "pm_1" }),
        status: 422,
        loc: ["body", "payment_method_id"],
      },
      {
        name: "a numeric confirmation token",
        request: post(() => chased.orderId, { confirmation_token_id: 7 }),
        status: 422,
        loc: ["body", "confirmation_token_id"],
      },
      {
        name: "an unknown processor",
        request: post(() => chased.orderId, { confirmation_token_id: "tok_visa", payment_processor: "paypal" }),
        status: 422,
        loc: ["body", "payment_processor"],
      },
      {
        name: "a non-UUID order id",
        request: post(() => "ord_1", { confirmation_token_id: "tok_visa" }),
        status: 422,
        loc: ["path", "id"],
      },
      { name: "another customer's order", request: post(() => neighbourOrder, { confirmation_token_id: "tok_visa" }), status: 404 },
      { name: "another organization's order", request: post(() => foreignOrder, { confirmation_token_id: "tok_visa" }), status: 404 },
      { name: "an unknown order", request: post(() => UNKNOWN, { confirmation_token_id: "tok_visa" }), status: 404 },
      {
        name: "no token",
        request: post(
          () => chased.orderId,
          { confirmation_token_id: "tok_visa" },
          () => null,
        ),
        status: 401,
      },
      {
        name: "an organization token",
        request: post(
          () => chased.orderId,
          { confirmation_token_id: "tok_visa" },
          () => checkoutToken,
        ),
        status: 401,
      },
      {
        name: "the status of another customer's order",
        request: () => ({ method: "GET", url: statusUrl(neighbourOrder), token: session }),
        status: 404,
      },
      {
        name: "the status of a non-UUID order",
        request: () => ({ method: "GET", url: statusUrl("ord_1"), token: session }),
        status: 422,
        loc: ["path", "id"],
      },
      { name: "the status without a token", request: () => ({ method: "GET", url: statusUrl(chased.orderId) }), status: 401 },
    ],
    async () => {
      const retries = await ctx.deps.db
        .selectFrom("payments")
        .select("id")
        .where("trigger", "=", "retry_customer")
        .where("order_id", "in", [chased.orderId, neighbourOrder, foreignOrder])
        .execute();
      expect(retries).toEqual([]);
    },
  );
});
