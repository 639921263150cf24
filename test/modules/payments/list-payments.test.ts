import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
  registerForTax,
} from "../../helpers/factories.ts";
import { qs } from "../../helpers/query-string.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { renewedSubscription } from "../customer-portal/payment-helpers.ts";
import { US_ADDRESS } from "../checkouts/checkout-helpers.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

// Every attempt the payments table holds — a checkout's one-off card, a subscription's saved card,
// a declined renewal — as the organization's payments.

interface PaymentBody {
  id: string;
  status: string;
  amount: number;
  method: string;
  trigger: string | null;
  checkout_id: string | null;
  order_id: string | null;
  decline_message: string | null;
  method_metadata?: { brand: string; last4: string };
  [key: string]: unknown;
}

let ctx: TestContext;
let org: { id: string };
let readToken: string;
let refundsToken: string;
let otherOrgId: string;
let foreignPaymentId: string;
/**
 * The organization's attempts, oldest first: a one-off card (2500), a saved mastercard (1500), a
 * French buyer's saved card at checkout (2000 + 20% VAT) and that subscription's declined renewal.
 */
let attempts: { id: string; orderId: string; customerId: string; checkoutId: string | null }[];

const paymentsOfOrder = (orderId: string) =>
  ctx.deps.db.selectFrom("payments").select(["id", "customer_id"]).where("order_id", "=", orderId).orderBy("created_at").execute();
const orderOfCheckout = (checkoutId: string) =>
  ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", checkoutId).executeTakeFirstOrThrow();

beforeAll(async () => {
  let checkoutToken: string;
  ({
    ctx,
    org,
    tokens: [checkoutToken, readToken, refundsToken],
  } = await openOrganizationContext(["checkouts:write"], ["payments:read"], ["refunds:read"]));
  await registerForTax(ctx.deps, org.id);
  ctx.clock.set(new Date("2027-01-05T00:00:00.000Z"));
  attempts = [];
  const buy = async (productId: string, card: string, email: string) => {
    ctx.clock.advance(1000);
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, productId, {
      card,
      buyer: { customer_email: email, customer_billing_address: US_ADDRESS },
    });
    const order = await orderOfCheckout(checkout.id);
    const [payment] = await paymentsOfOrder(order.id);
    attempts.push({ id: payment!.id, orderId: order.id, customerId: payment!.customer_id, checkoutId: checkout.id });
  };
  const book = await createProduct(ctx.deps, org.id, { prices: [{ amount_type: "fixed", price_amount: 2500 }] });
  // US buyers pay no tax, so these amounts are the prices.
  await buy(book.product.id, "tok_visa", "Once@Payments.example");
  const plan = await createProduct(ctx.deps, org.id, {
    // Yearly: the monthly renewal sweep below leaves it alone.
    product: { name: "Paid plan", recurring_interval: "year", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  await buy(plan.product.id, "tok_mastercard", "saved@payments.example");
  ctx.clock.advance(1000);
  const renewed = await renewedSubscription(ctx, org, checkoutToken, "declined@payments.example");
  const subscription = await ctx.deps.db
    .selectFrom("subscriptions")
    .select("checkout_id")
    .where("id", "=", renewed.subscriptionId)
    .executeTakeFirstOrThrow();
  const first = await orderOfCheckout(subscription.checkout_id!);
  const [atCheckout] = await paymentsOfOrder(first.id);
  const [declined] = await paymentsOfOrder(renewed.orderId);
  attempts.push({ id: atCheckout!.id, orderId: first.id, customerId: renewed.customerId, checkoutId: subscription.checkout_id });
  attempts.push({ id: declined!.id, orderId: renewed.orderId, customerId: renewed.customerId, checkoutId: null });

  otherOrgId = (await createOrganization(ctx.deps)).id;
  const otherCheckout = await createOrganizationToken(ctx.deps, otherOrgId, ["checkouts:write"]);
  const otherProduct = await createProduct(ctx.deps, otherOrgId);
  const { checkout } = await buyThroughCheckout(ctx, otherCheckout, otherProduct.product.id);
  foreignPaymentId = (await paymentsOfOrder((await orderOfCheckout(checkout.id)).id))[0]!.id;
});
afterAll(() => ctx.close());

const list = async (pairs: [string, string][], token = readToken) => {
  const response = await ctx.request({ method: "GET", url: `/v1/payments/${qs(pairs)}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("payments:list", 200, response.json());
  return response.json<{ items: PaymentBody[]; pagination: { total_count: number; max_page: number } }>();
};
const ids = async (pairs: [string, string][], token?: string) => (await list(pairs, token)).items.map((item) => item.id);
const pick = (...indexes: number[]) => indexes.map((i) => attempts[i]!.id);
const get = (id: string, token: string | null = readToken) => ctx.request({ method: "GET", url: `/v1/payments/${id}`, token });

describe("GET /v1/payments/{id}", () => {
  it("answers a card payment with the saved method's brand and last digits", async () => {
    const response = await get(attempts[1]!.id);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("payments:get", 200, response.json());
    expect(response.json()).toEqual({
      created_at: expect.any(String),
      modified_at: null,
      id: attempts[1]!.id,
      processor: "stripe",
      status: "succeeded",
      amount: 1500,
      currency: "usd",
      method: "card",
      trigger: "purchase",
      decline_reason: null,
      decline_message: null,
      organization_id: org.id,
      checkout_id: attempts[1]!.checkoutId,
      order_id: attempts[1]!.orderId,
      processor_metadata: { charge_id: expect.stringMatching(/^ch_sandbox_/) },
      method_metadata: { brand: "mastercard", last4: "4444" },
    });
  });

  it("answers a one-off card at checkout (not saved) in the generic shape", async () => {
    const response = await get(attempts[0]!.id);
    expectReferenceResponse("payments:get", 200, response.json());
    expect(response.json()).toMatchObject({ method: "card", amount: 2500, trigger: "purchase", checkout_id: attempts[0]!.checkoutId });
    expect(response.json()).not.toHaveProperty("method_metadata");
  });

  it("answers a declined renewal: failed, its message, no charge, no checkout", async () => {
    const response = await get(attempts[3]!.id);
    expectReferenceResponse("payments:get", 200, response.json());
    expect(response.json()).toMatchObject({
      status: "failed",
      amount: 2400,
      trigger: "subscription_cycle",
      decline_message: "Your card was declined.",
      checkout_id: null,
      order_id: attempts[3]!.orderId,
      processor_metadata: {},
      method_metadata: { brand: "visa", last4: "0341" },
    });
  });

  it("answers 404 for another organization's payment and an unknown one", async () => {
    for (const id of [foreignPaymentId, "3f2b1c4d-1111-4222-8333-123456789abc"]) {
      const response = await get(id);
      expect(response.statusCode).toBe(404);
      expectReferenceResponse("payments:get", 404, response.json());
    }
    expect((await get(foreignPaymentId, ctx.ownerToken)).statusCode).toBe(200);
  });
});

describe("GET /v1/payments/", () => {
  it("lists every attempt of the organization newest first, never another organization's", async () => {
    const body = await list([]);
    expect(body.items.map((item) => item.id)).toEqual(pick(3, 2, 1, 0));
    expect(body.pagination).toEqual({ total_count: 4, max_page: 1 });
    expect(await ids([["organization_id", otherOrgId]])).toEqual([]);
    expect(await ids([["organization_id", otherOrgId]], ctx.ownerToken)).toEqual([foreignPaymentId]);
  });

  it("filters by status, order, checkout, customer, customer email and method", async () => {
    expect(await ids([["status", "failed"]])).toEqual(pick(3));
    expect(
      await ids([
        ["status", "failed"],
        ["status", "succeeded"],
      ]),
    ).toEqual(pick(3, 2, 1, 0));
    expect(await ids([["order_id", attempts[3]!.orderId]])).toEqual(pick(3));
    expect(await ids([["checkout_id", attempts[0]!.checkoutId!]])).toEqual(pick(0));
    expect(await ids([["customer_id", attempts[3]!.customerId]])).toEqual(pick(3, 2));
    // E-mails compare without case.
    expect(await ids([["customer_email", "once@payments.EXAMPLE"]])).toEqual(pick(0));
    expect(await ids([["method", "card"]])).toEqual(pick(3, 2, 1, 0));
    expect(await ids([["method", "sepa_debit"]])).toEqual([]);
  });

  it("sorts by amount, status, method and creation, and pages without repeats", async () => {
    const byAmount = (await list([["sorting", "amount"]])).items.map((item) => item.amount);
    expect(byAmount).toEqual([1500, 2400, 2400, 2500]);
    // Equal amounts fall back to the id, in the first criterion's direction.
    const [, tieLow, tieHigh] = await ids([["sorting", "amount"]]);
    expect([tieLow, tieHigh]).toEqual(pick(2, 3).sort());
    expect(await ids([["sorting", "-amount"]])).toEqual([attempts[0]!.id, tieHigh, tieLow, attempts[1]!.id]);
    expect((await list([["sorting", "-status"]])).items.map((item) => item.status)).toEqual([
      "failed",
      "succeeded",
      "succeeded",
      "succeeded",
    ]);
    expect(await ids([["sorting", "created_at"]])).toEqual(pick(0, 1, 2, 3));
    const pages = [];
    for (const page of ["1", "2"])
      pages.push(
        ...(await ids([
          ["sorting", "method"],
          ["limit", "3"],
          ["page", page],
        ])),
      );
    expect(new Set(pages)).toEqual(new Set(pick(0, 1, 2, 3)));
    expect(pages).toHaveLength(4);
  });
});

describe("GET /v1/payments/ and /{id} refusals", () => {
  it("answer bad parameters in the reference's 422 shape", async () => {
    const list = await ctx.request({ method: "GET", url: "/v1/payments/?status=refunded&limit=0", token: readToken });
    expect(list.statusCode).toBe(422);
    expectReferenceResponse("payments:list", 422, list.json());
    const one = await get("pay_1");
    expect(one.statusCode).toBe(422);
    expectReferenceResponse("payments:get", 422, one.json());
  });
});

describe("GET /v1/payments/ and /{id} bad input", () => {
  const request =
    (url: string, token: () => string | null = () => readToken) =>
    () => ({ method: "GET" as const, url, token: token() });
  badInputTable(
    () => ctx.request,
    [
      { name: "no token on the list", request: request("/v1/payments/", () => null), status: 401 },
      { name: "no token on a payment", request: request(`/v1/payments/3f2b1c4d-1111-4222-8333-123456789abc`, () => null), status: 401 },
      { name: "a token without payments:read (list)", request: request("/v1/payments/", () => refundsToken), status: 403 },
      {
        name: "a token without payments:read (get)",
        request: request("/v1/payments/3f2b1c4d-1111-4222-8333-123456789abc", () => refundsToken),
        status: 403,
      },
      { name: "a non-UUID payment id", request: request("/v1/payments/pay_1"), status: 422, loc: ["path", "id"] },
      { name: "a non-UUID order_id", request: request("/v1/payments/?order_id=1"), status: 422 },
      { name: "a non-UUID checkout_id", request: request("/v1/payments/?checkout_id=x"), status: 422 },
      { name: "a non-UUID customer_id", request: request("/v1/payments/?customer_id=x"), status: 422 },
      { name: "a non-UUID organization_id", request: request("/v1/payments/?organization_id=x"), status: 422 },
      { name: "an unknown status", request: request("/v1/payments/?status=refunded"), status: 422 },
      { name: "an overlong method", request: request(`/v1/payments/?method=${"m".repeat(65)}`), status: 422 },
      { name: "an overlong customer_email", request: request(`/v1/payments/?customer_email=${"e".repeat(321)}`), status: 422 },
      { name: "an unknown sort key", request: request("/v1/payments/?sorting=trigger"), status: 422 },
      { name: "page 0", request: request("/v1/payments/?page=0"), status: 422, loc: ["query", "page"] },
      { name: "limit -1", request: request("/v1/payments/?limit=-1"), status: 422, loc: ["query", "limit"] },
    ],
  );
});
