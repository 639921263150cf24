import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { eventTypesOf } from "../subscriptions/subscription-helpers.ts";
import { orderOf, paymentsOf, renewedSubscription, subscriptionOf } from "./payment-helpers.ts";

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let customersToken: string;
let ordersToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, customersToken, ordersToken],
  } = await openOrganizationContext(["checkouts:write"], ["customers:read"], ["orders:read"]));
});
afterAll(() => ctx.close());

// The bad-input tables act as a customer without methods, through a session opened right before
// each case: tests move the clock by months, past any session opened earlier.
let tableCustomerId = "";
let tableSession = "";
beforeAll(async () => {
  tableCustomerId = (await createCustomer(ctx.deps, org.id)).id;
});
beforeEach(async () => {
  tableSession = await createCustomerSessionToken(ctx.deps, tableCustomerId);
});

const URL = "/v1/customer-portal/customers/me/payment-methods";
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";
const SECOND = 1000;

const add = (session: string, token: string, setDefault = false) =>
  ctx.request({
    method: "POST",
    url: URL,
    token: session,
    payload: { confirmation_token_id: token, set_default: setDefault, return_url: "https://shop.test/back" },
  });
const list = (session: string, query = "") => ctx.request({ method: "GET", url: `${URL}${query}`, token: session });
const customerRow = (id: string) => ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** A customer of the organization without any saved method, and a live portal session of it. */
async function freshCustomer() {
  const customer = await createCustomer(ctx.deps, org.id);
  return { customerId: customer.id, session: await createCustomerSessionToken(ctx.deps, customer.id) };
}

describe("POST /v1/customer-portal/customers/me/payment-methods", () => {
  it("sets a card up without charging and answers 201 succeeded with it; the default stays unless asked", async () => {
    const { customerId, session } = await freshCustomer();
    const response = await add(session, "tok_mastercard");
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("customer_portal:customers:add_payment_method", 201, body);
    expect(body).toEqual({
      status: "succeeded",
      payment_method: {
        id: expect.any(String),
        created_at: ctx.clock.now().toISOString(),
        modified_at: null,
        processor: "stripe",
        customer_id: customerId,
        type: "card",
        method_metadata: { brand: "mastercard", last4: "4444", exp_month: 12, exp_year: 2034, wallet: null },
      },
    });
    expect((await customerRow(customerId)).default_payment_method_id).toBeNull();
    expect(await ctx.deps.db.selectFrom("payments").select("id").where("customer_id", "=", customerId).execute()).toEqual([]);

    const second = (await add(session, "tok_visa", true)).json();
    expect((await customerRow(customerId)).default_payment_method_id).toBe(second.payment_method.id);
    expect(await eventTypesOf(ctx, customerId)).toContain("customer.updated");
  });

  it("refuses a declined card with the anchor's 400 and saves nothing", async () => {
    const { customerId, session } = await freshCustomer();
    for (const [token, reason] of [
      ["tok_chargeDeclinedInsufficientFunds", "Your card was declined."],
      ["tok_chargeDeclinedProcessingError", "An error occurred while processing your card. Try again in a little bit."],
    ]) {
      const response = await add(session, token!);
      expect(response.statusCode, response.body).toBe(400);
      expectReferenceResponse("customer_portal:customers:add_payment_method", 400, response.json());
      expect(response.json()).toEqual({
        error: "PaymentMethodSetupFailed",
        detail: `Could not add this payment method: ${reason} Please try again with a different card.`,
      });
    }
    expect((await list(session)).json().items).toEqual([]);
    expect((await customerRow(customerId)).default_payment_method_id).toBeNull();
  });

  it("attaches tok_chargeCustomerFail (only its later charges decline)", async () => {
    const { session } = await freshCustomer();
    const response = await add(session, "tok_chargeCustomerFail");
    expect(response.statusCode).toBe(201);
    expect(response.json().payment_method.method_metadata).toMatchObject({ brand: "visa", last4: "0341" });
  });

  it("with set_default, retries the past-due subscription's order at once on the new card: active again, order paid", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "recover@example.com");
    expect(await subscriptionOf(ctx, bought.subscriptionId)).toMatchObject({ status: "past_due" });
    const pending = await orderOf(ctx, bought.orderId);
    expect(pending).toMatchObject({ status: "pending", next_payment_attempt_at: expect.any(Date) });

    ctx.clock.advance(SECOND);
    const response = await add(bought.session, "tok_visa", true);
    expect(response.statusCode, response.body).toBe(201);
    const methodId = response.json().payment_method.id;

    expect(await subscriptionOf(ctx, bought.subscriptionId)).toMatchObject({
      status: "active",
      past_due_at: null,
      payment_method_id: methodId,
    });
    expect(await orderOf(ctx, bought.orderId)).toMatchObject({ status: "paid", next_payment_attempt_at: null });
    const payments = await paymentsOf(ctx, bought.orderId);
    expect(payments.map((payment) => [payment.trigger, payment.status])).toEqual([
      ["subscription_cycle", "failed"],
      ["retry_customer", "succeeded"],
    ]);
    expect(payments[1]!.payment_method_id).toBe(methodId);
    expect((await customerRow(bought.customerId)).default_payment_method_id).toBe(methodId);
    const read = await ctx.request({ method: "GET", url: `/v1/orders/${bought.orderId}`, token: ordersToken });
    expect(read.json()).toMatchObject({ status: "paid", due_amount: 0 });
    expect((await eventTypesOf(ctx, bought.subscriptionId)).slice(-2)).toEqual(["subscription.updated", "subscription.active"]);
  });

  it("with set_default on a card that declines too, leaves dunning where it was (the retry is not counted)", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "still-failing@example.com");
    const before = await orderOf(ctx, bought.orderId);
    ctx.clock.advance(SECOND);
    expect((await add(bought.session, "tok_chargeCustomerFail", true)).statusCode).toBe(201);
    expect(await subscriptionOf(ctx, bought.subscriptionId)).toMatchObject({ status: "past_due" });
    expect(await orderOf(ctx, bought.orderId)).toMatchObject({
      status: "pending",
      next_payment_attempt_at: before.next_payment_attempt_at,
    });
    expect((await paymentsOf(ctx, bought.orderId)).map((payment) => [payment.trigger, payment.status])).toEqual([
      ["subscription_cycle", "failed"],
      ["retry_customer", "failed"],
    ]);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a missing confirmation token",
        request: () => ({ method: "POST", url: URL, token: tableSession, payload: { set_default: false, return_url: "https://x.test" } }),
        status: 422,
        loc: ["body", "confirmation_token_id"],
      },
      {
        name: "a missing set_default",
        request: () => ({
          method: "POST",
          url: URL,
          token: tableSession,
          payload: { confirmation_token_id: "tok_visa", return_url: "https://x.test" },
        }),
        status: 422,
        loc: ["body", "set_default"],
      },
      {
        name: "a missing return_url",
        request: () => ({
          method: "POST",
          url: URL,
          token: tableSession,
          payload: { confirmation_token_id: "tok_visa", set_default: false },
        }),
        status: 422,
        loc: ["body", "return_url"],
      },
      {
        name: "a numeric confirmation token",
        request: () => ({
          method: "POST",
          url: URL,
          token: tableSession,
          payload: { confirmation_token_id: 42, set_default: false, return_url: "https://x.test" },
        }),
        status: 422,
        loc: ["body", "confirmation_token_id"],
      },
      {
        name: "an overlong confirmation token",
        request: () => ({
          method: "POST",
          url: URL,
          token: tableSession,
          payload: { confirmation_token_id: `tok_${"x".repeat(300)}`, set_default: false, return_url: "https://x.test" },
        }),
        status: 422,
        loc: ["body", "confirmation_token_id"],
      },
      {
        name: "no token",
        request: () => ({
          method: "POST",
          url: URL,
          payload: { confirmation_token_id: "tok_visa", set_default: false, return_url: "https://x.test" },
        }),
        status: 401,
      },
      {
        name: "an organization token",
        request: () => ({
          method: "POST",
          url: URL,
          token: customersToken,
          payload: { confirmation_token_id: "tok_visa", set_default: false, return_url: "https://x.test" },
        }),
        status: 401,
      },
    ],
    async () => {
      expect(await ctx.deps.db.selectFrom("payment_methods").select("id").where("customer_id", "=", tableCustomerId).execute()).toEqual([]);
    },
  );
});

describe("GET /v1/customer-portal/customers/me/payment-methods", () => {
  it("lists the session customer's live methods, newest first, with the shared pagination", async () => {
    const { session } = await freshCustomer();
    const ids: string[] = [];
    for (const token of ["tok_visa", "tok_mastercard", "tok_amex"]) {
      ctx.clock.advance(SECOND);
      ids.push((await add(session, token)).json().payment_method.id);
    }
    await add((await freshCustomer()).session, "tok_visa");
    const response = await list(session);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:customers:list_payment_methods", 200, body);
    expect(body.items.map((item: { id: string }) => item.id)).toEqual([...ids].reverse());
    expect(body.pagination).toEqual({ total_count: 3, max_page: 1 });
    const page = (await list(session, "?page=2&limit=2")).json();
    expect(page.items.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
    expect(page.pagination).toEqual({ total_count: 3, max_page: 2 });
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "page 0",
        request: () => ({ method: "GET", url: `${URL}?page=0`, token: tableSession }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "a text limit",
        request: () => ({ method: "GET", url: `${URL}?limit=ten`, token: tableSession }),
        status: 422,
        loc: ["query", "limit"],
      },
      { name: "no token", request: () => ({ method: "GET", url: URL }), status: 401 },
      { name: "an organization token", request: () => ({ method: "GET", url: URL, token: customersToken }), status: 401 },
    ],
  );
});

describe("POST /v1/customer-portal/customers/me/payment-methods/confirm", () => {
  it("knows no setup intent: the sandbox's setups never wait for a further step", async () => {
    const response = await ctx.request({
      method: "POST",
      url: `${URL}/confirm`,
      token: tableSession,
      payload: { setup_intent_id: "seti_123", set_default: true },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      error: "RequestValidationError",
      detail: [{ loc: ["body", "setup_intent_id"], msg: "Invalid setup_intent_id.", type: "invalid", input: "seti_123" }],
    });
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a missing set_default",
        request: () => ({ method: "POST", url: `${URL}/confirm`, token: tableSession, payload: { setup_intent_id: "seti_1" } }),
        status: 422,
        loc: ["body", "set_default"],
      },
      {
        name: "a numeric setup intent",
        request: () => ({ method: "POST", url: `${URL}/confirm`, token: tableSession, payload: { setup_intent_id: 1, set_default: true } }),
        status: 422,
        loc: ["body", "setup_intent_id"],
      },
      {
        name: "no token",
        request: () => ({ method: "POST", url: `${URL}/confirm`, payload: { setup_intent_id: "seti_1", set_default: true } }),
        status: 401,
      },
    ],
  );
});

describe("DELETE /v1/customer-portal/customers/me/payment-methods/{id}", () => {
  const remove = (session: string | null, id: string) => ctx.request({ method: "DELETE", url: `${URL}/${id}`, token: session });

  it("deletes an unused method (204): no longer listed nor charged", async () => {
    const { session } = await freshCustomer();
    const id = (await add(session, "tok_visa")).json().payment_method.id;
    const response = await remove(session, id);
    expect(response.statusCode, response.body).toBe(204);
    expect(response.body).toBe("");
    expect((await list(session)).json().items).toEqual([]);
    expect((await remove(session, id)).statusCode).toBe(404);
  });

  it("refuses the only method an active subscription bills with the anchor's 400, then moves the subscription when another exists", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "keeps-card@example.com", "tok_visa");
    const [checkoutCard] = (await list(bought.session)).json().items as { id: string }[];
    const refused = await remove(bought.session, checkoutCard!.id);
    expect(refused.statusCode).toBe(400);
    expectReferenceResponse("customer_portal:customers:delete_payment_method", 400, refused.json());
    expect(refused.json()).toEqual({
      error: "PaymentMethodInUseByActiveSubscription",
      detail: "This payment method is still needed to bill a subscription. Add another one or cancel the subscription first.",
    });

    ctx.clock.advance(SECOND);
    const other = (await add(bought.session, "tok_mastercard")).json().payment_method.id;
    expect((await remove(bought.session, checkoutCard!.id)).statusCode).toBe(204);
    expect((await subscriptionOf(ctx, bought.subscriptionId)).payment_method_id).toBe(other);
    // The checkout's card was the default; the remaining one replaces it.
    expect((await customerRow(bought.customerId)).default_payment_method_id).toBe(other);
  });

  it("lets a subscription ending at period end (nothing more to bill) lose its method", async () => {
    const bought = await renewedSubscription(ctx, org, checkoutToken, "leaving@example.com", "tok_visa");
    await ctx.deps.db.updateTable("subscriptions").set({ cancel_at_period_end: true }).where("id", "=", bought.subscriptionId).execute();
    const [card] = (await list(bought.session)).json().items as { id: string }[];
    expect((await remove(bought.session, card!.id)).statusCode).toBe(204);
    expect((await customerRow(bought.customerId)).default_payment_method_id).toBeNull();
  });

  let owner = { customerId: "", session: "", methodId: "" };
  let stranger = "";
  let foreignOrgMethod = "";
  beforeAll(async () => {
    const a = await freshCustomer();
    const b = await freshCustomer();
    owner = { ...a, methodId: (await add(a.session, "tok_visa")).json().payment_method.id };
    stranger = (await add(b.session, "tok_visa")).json().payment_method.id;
    const otherOrg = await createOrganization(ctx.deps);
    const outsider = await createCustomer(ctx.deps, otherOrg.id);
    const outsiderSession = await createCustomerSessionToken(ctx.deps, outsider.id);
    foreignOrgMethod = (await add(outsiderSession, "tok_visa")).json().payment_method.id;
  });
  beforeEach(async () => {
    owner.session = await createCustomerSessionToken(ctx.deps, owner.customerId);
  });
  badInputTable(
    () => ctx.request,
    [
      {
        name: "another customer's method",
        request: () => ({ method: "DELETE", url: `${URL}/${stranger}`, token: owner.session }),
        status: 404,
      },
      {
        name: "another organization's method",
        request: () => ({ method: "DELETE", url: `${URL}/${foreignOrgMethod}`, token: owner.session }),
        status: 404,
      },
      { name: "an unknown id", request: () => ({ method: "DELETE", url: `${URL}/${UNKNOWN}`, token: owner.session }), status: 404 },
      {
        name: "a non-UUID id",
        request: () => ({ method: "DELETE", url: `${URL}/pm_123`, token: owner.session }),
        status: 422,
        loc: ["path", "id"],
      },
      { name: "no token", request: () => ({ method: "DELETE", url: `${URL}/${owner.methodId}` }), status: 401 },
      {
        name: "an organization token",
        request: () => ({ method: "DELETE", url: `${URL}/${owner.methodId}`, token: customersToken }),
        status: 401,
      },
    ],
    async () => {
      const live = await ctx.deps.db
        .selectFrom("payment_methods")
        .select("id")
        .where("id", "in", [owner.methodId, stranger, foreignOrgMethod])
        .where("deleted_at", "is", null)
        .execute();
      expect(live).toHaveLength(3);
    },
  );
});

describe("GET /v1/customers/{id}/payment-methods and /external/{external_id}/payment-methods", () => {
  it("lists a customer's methods for the organization, newest first, marking the default", async () => {
    const customer = await createCustomer(ctx.deps, org.id, { external_id: "pm-ext-1" });
    const session = await createCustomerSessionToken(ctx.deps, customer.id);
    ctx.clock.advance(SECOND);
    const first = (await add(session, "tok_visa", true)).json().payment_method.id;
    ctx.clock.advance(SECOND);
    const second = (await add(session, "tok_amex")).json().payment_method.id;
    for (const [operationId, url] of [
      ["customers:list_payment_methods", `/v1/customers/${customer.id}/payment-methods`],
      ["customers:list_payment_methods_external", "/v1/customers/external/pm-ext-1/payment-methods"],
    ] as const) {
      const response = await ctx.request({ method: "GET", url, token: customersToken });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expectReferenceResponse(operationId, 200, body);
      expect(body.items.map((item: { id: string; is_default: boolean }) => [item.id, item.is_default])).toEqual([
        [second, false],
        [first, true],
      ]);
      expect(body.items[0]).toMatchObject({
        customer_id: customer.id,
        processor: "stripe",
        method_metadata: { brand: "amex", last4: "8431" },
      });
      expect(body.pagination).toEqual({ total_count: 2, max_page: 1 });
    }
  });

  let foreignCustomer = "";
  let writeOnly = "";
  beforeAll(async () => {
    const otherOrg = await createOrganization(ctx.deps);
    foreignCustomer = (await createCustomer(ctx.deps, otherOrg.id, { external_id: "foreign-ext" })).id;
    writeOnly = await createOrganizationToken(ctx.deps, org.id, ["orders:read"]);
  });
  badInputTable(
    () => ctx.request,
    [
      {
        name: "another organization's customer",
        request: () => ({ method: "GET", url: `/v1/customers/${foreignCustomer}/payment-methods`, token: customersToken }),
        status: 404,
      },
      {
        name: "another organization's external id",
        request: () => ({ method: "GET", url: "/v1/customers/external/foreign-ext/payment-methods", token: customersToken }),
        status: 404,
      },
      {
        name: "an unknown customer",
        request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/payment-methods`, token: customersToken }),
        status: 404,
      },
      {
        name: "a non-UUID id",
        request: () => ({ method: "GET", url: "/v1/customers/cus_1/payment-methods", token: customersToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "a limit of 0",
        request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/payment-methods?limit=0`, token: customersToken }),
        status: 422,
        loc: ["query", "limit"],
      },
      { name: "no token", request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/payment-methods` }), status: 401 },
      {
        name: "a token without customers:read",
        request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/payment-methods`, token: writeOnly }),
        status: 403,
      },
      {
        name: "a customer session",
        request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/payment-methods`, token: tableSession }),
        status: 401,
      },
    ],
  );
});
