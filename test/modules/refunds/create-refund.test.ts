import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import type { PaymentProcessor } from "../../../src/adapters/payment-processors/payment-processor.ts";
import { sandboxProcessor } from "../../../src/adapters/payment-processors/sandbox.processor.ts";
import { buildServices } from "../../../src/services.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyThroughCheckout, eventTypesOf } from "../subscriptions/subscription-helpers.ts";
import { orderRow, paidOrder, refundWrites } from "./refund-helpers.ts";

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let refundToken: string;
let readToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, refundToken, readToken],
  } = await openOrganizationContext(["checkouts:write"], ["refunds:write"], ["refunds:read"]));
});
afterAll(() => ctx.close());

const refund = (payload: Record<string, unknown>, token: string | null = refundToken) =>
  ctx.request({ method: "POST", url: "/v1/refunds/", token, payload });
const getOrder = async (id: string) => (await ctx.request({ method: "GET", url: `/v1/orders/${id}`, token: ctx.ownerToken })).json();

describe("POST /v1/refunds/", () => {
  it("refunds part of a taxed order, then the rest: amounts, tax shares, order totals and statuses", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 2500 });
    expect(order).toMatchObject({ net_amount: 2500, tax_amount: 500, total_amount: 3000 });

    const first = await refund({
      order_id: order.id,
      reason: "customer_request",
      amount: 1001,
      comment: "late delivery",
      metadata: { ticket: "T-1" },
    });
    expect(first.statusCode, first.body).toBe(201);
    expectReferenceResponse("refunds:create", 201, first.json());
    expect(first.json()).toMatchObject({
      status: "succeeded",
      reason: "customer_request",
      amount: 1001,
      // 1001 × 500 / 2500 = 200.2 → 200
      tax_amount: 200,
      currency: "usd",
      organization_id: org.id,
      order_id: order.id,
      subscription_id: null,
      customer_id: order.customer_id,
      revoke_benefits: false,
      dispute: null,
      metadata: { ticket: "T-1" },
    });
    expect(first.json()).not.toHaveProperty("comment");
    expect(await getOrder(order.id)).toMatchObject({
      status: "partially_refunded",
      paid: true,
      refunded_amount: 1001,
      refunded_tax_amount: 200,
      refundable_amount: 1499,
      refundable_tax_amount: 300,
    });

    // The whole remainder refunds all the tax that remains, whatever the ratio gives.
    const rest = await refund({ order_id: order.id, reason: "other", amount: 1499 });
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json()).toMatchObject({ amount: 1499, tax_amount: 300, status: "succeeded" });
    expect(await getOrder(order.id)).toMatchObject({
      status: "refunded",
      refunded_amount: 2500,
      refunded_tax_amount: 500,
      refundable_amount: 0,
      refundable_tax_amount: 0,
    });
    const stored = await ctx.deps.db.selectFrom("refunds").selectAll().where("order_id", "=", order.id).orderBy("created_at").execute();
    expect(stored.map((row) => [row.comment, row.processor_reference?.startsWith("re_sandbox_")])).toEqual([
      ["late delivery", true],
      [null, true],
    ]);

    const again = await refund({ order_id: order.id, reason: "other", amount: 1 });
    expect(again.statusCode).toBe(403);
    expectReferenceResponse("refunds:create", 403, again.json());
    expect(again.json()).toEqual({ error: "RefundedAlready", detail: `Order is already fully refunded: ${order.id}` });
  });

  it("refunds no tax of an untaxed order", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1999, country: "US" });
    expect(order.tax_amount).toBe(0);
    const response = await refund({ order_id: order.id, reason: "duplicate", amount: 999 });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ amount: 999, tax_amount: 0 });
  });

  it("records refund.created, order.updated, order.refunded and refund.updated in the refund's transaction", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken);
    const response = await refund({ order_id: order.id, reason: "customer_request", amount: 500 });
    const refundId = response.json<{ id: string }>().id;
    expect(await eventTypesOf(ctx, refundId)).toEqual(["refund.created", "refund.updated"]);
    const rows = await ctx.deps.db
      .selectFrom("webhook_events")
      .select(["type", "payload"])
      .where(sql<boolean>`payload->'data'->>'id' IN (${order.id}, ${refundId})`)
      .where("type", "in", ["refund.created", "refund.updated", "order.updated", "order.refunded"])
      .orderBy("position")
      .execute();
    expect(rows.map((row) => row.type)).toEqual(["refund.created", "order.updated", "order.refunded", "refund.updated"]);
    const data = rows.map((row) => (row.payload as { data: Record<string, unknown> }).data);
    // Created while the processor is asked, settled once it answered.
    expect(data[0]).toMatchObject({ id: refundId, status: "pending" });
    expect(data[2]).toMatchObject({ id: order.id, status: "partially_refunded", refunded_amount: 500, refunded_tax_amount: 100 });
    expect(data[3]).toMatchObject({ id: refundId, status: "succeeded" });
  });

  it("revokes a one-time order's grants and their license key with revoke_benefits", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, {
      benefits: [{ type: "license_keys", description: "License key", properties: { prefix: "REF" } }],
    });
    const grants = () => ctx.deps.db.selectFrom("benefit_grants").selectAll().where("order_id", "=", order.id).execute();
    const [grant] = await grants();
    expect(grant?.granted_at).not.toBeNull();
    const keyId = (grant!.properties as { license_key_id: string }).license_key_id;

    const response = await refund({ order_id: order.id, reason: "fraudulent", amount: 100, revoke_benefits: true });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().revoke_benefits).toBe(true);
    const [revoked] = await grants();
    expect(revoked).toMatchObject({ granted_at: null, revoked_at: expect.any(Date) });
    const key = await ctx.deps.db.selectFrom("license_keys").select("status").where("id", "=", keyId).executeTakeFirstOrThrow();
    expect(key.status).toBe("revoked");
  });

  it("keeps the grants of a refund without revoke_benefits", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, {
      benefits: [{ type: "license_keys", description: "License key", properties: { prefix: "KEEP" } }],
    });
    expect((await refund({ order_id: order.id, reason: "other", amount: 2500 })).statusCode).toBe(201);
    const [grant] = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("order_id", "=", order.id).execute();
    expect(grant?.granted_at).not.toBeNull();
  });

  it("answers 400 RevokeSubscriptionBenefitsProhibited for revoke_benefits on a subscription's order, and refunds it without", async () => {
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "Refundable plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1500 }],
    });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, {
      buyer: { customer_email: "plan-refund@example.com" },
    });
    const order = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkout.id).executeTakeFirstOrThrow();
    const before = await refundWrites(ctx);
    const refused = await refund({ order_id: order.id, reason: "other", amount: 100, revoke_benefits: true });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: "RevokeSubscriptionBenefitsProhibited",
      detail: "Subscription benefits can only be revoked upon cancellation",
    });
    expect(await refundWrites(ctx)).toEqual(before);
    const allowed = await refund({ order_id: order.id, reason: "other", amount: 100 });
    expect(allowed.statusCode, allowed.body).toBe(201);
    expect(allowed.json().subscription_id).toBe(checkout.subscription_id);
  });

  it("answers 404 RefundUnknownPayment for an order whose money was never taken", async () => {
    const pending = await createOrder(ctx.deps, org.id, { paid: false, values: { status: "pending" } });
    // Written paid without a recorded payment (as an import would): nothing to give back either.
    const unrecorded = await createOrder(ctx.deps, org.id);
    const before = await refundWrites(ctx);
    for (const order of [pending, unrecorded]) {
      const response = await refund({ order_id: order.id, reason: "other", amount: 100 });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "RefundUnknownPayment", detail: `Refund issued for unknown order: ${order.id}` });
    }
    expect(await refundWrites(ctx)).toEqual(before);
  });

  it("answers 422 at body.amount above the refundable amount, counting earlier refunds", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const before = await refundWrites(ctx);
    const above = await refund({ order_id: order.id, reason: "other", amount: 1001 });
    expect(above.statusCode).toBe(422);
    expectReferenceResponse("refunds:create", 422, above.json());
    expect(above.json().detail).toEqual([
      { loc: ["body", "amount"], msg: "Refund amount exceeds refundable amount", type: "value_error", input: 1001 },
    ]);
    expect(await refundWrites(ctx)).toEqual(before);
    expect((await refund({ order_id: order.id, reason: "other", amount: 600 })).statusCode).toBe(201);
    expect((await refund({ order_id: order.id, reason: "other", amount: 401 })).statusCode).toBe(422);
    expect((await refund({ order_id: order.id, reason: "other", amount: 400 })).json()).toMatchObject({ amount: 400, tax_amount: 80 });
  });

  it("answers schema failures in the reference's 422 shape, and another organization's order as not found", async () => {
    const missing = await refund({ reason: "bored", amount: 0 });
    expect(missing.statusCode).toBe(422);
    expectReferenceResponse("refunds:create", 422, missing.json());
    const other = await createOrganization(ctx.deps);
    const foreign = await createOrder(ctx.deps, other.id);
    const hidden = await refund({ order_id: foreign.id, reason: "other", amount: 1 });
    expect(hidden.statusCode).toBe(422);
    expectReferenceResponse("refunds:create", 422, hidden.json());
    expect(hidden.json().detail).toEqual([{ loc: ["body", "order_id"], msg: "Order not found", type: "value_error", input: foreign.id }]);
  });

  it("records a refund the processor refuses as failed, and leaves the order as it was", async () => {
    const failing: PaymentProcessor = { ...sandboxProcessor, refund: async () => ({ status: "failed", message: "Charge is disputed." }) };
    const app = await buildApp(ctx.deps, { logger: false, services: buildServices(ctx.deps, { payments: failing }) });
    try {
      const order = await paidOrder(ctx, org.id, checkoutToken);
      const response = await app.inject({
        method: "POST",
        url: "/v1/refunds/",
        headers: { authorization: `Bearer ${refundToken}` },
        payload: { order_id: order.id, reason: "other", amount: 700 },
      });
      expect(response.statusCode, response.body).toBe(201);
      expectReferenceResponse("refunds:create", 201, response.json());
      expect(response.json()).toMatchObject({ status: "failed", amount: 700, tax_amount: 140 });
      expect(await orderRow(ctx, order.id)).toMatchObject({ status: "paid", refunded_amount: 0, refunded_tax_amount: 0 });
      expect(await eventTypesOf(ctx, response.json().id)).toEqual(["refund.created", "refund.updated"]);
      expect(await eventTypesOf(ctx, order.id)).not.toContain("order.refunded");
    } finally {
      await app.close();
    }
  });
});

describe("POST /v1/refunds/ bad input", () => {
  let orderId: string;
  let foreignOrderId: string;
  let before: Awaited<ReturnType<typeof refundWrites>>;
  beforeAll(async () => {
    orderId = (await paidOrder(ctx, org.id, checkoutToken, { price: 1000 })).id;
    const other = await createOrganization(ctx.deps);
    const otherCheckoutToken = await createOrganizationToken(ctx.deps, other.id, ["checkouts:write"]);
    foreignOrderId = (await paidOrder(ctx, other.id, otherCheckoutToken)).id;
    before = await refundWrites(ctx);
  });
  const valid = () => ({ order_id: orderId, reason: "customer_request", amount: 100 });
  const post =
    (payload: Record<string, unknown>, token: string | null = refundToken) =>
    () => ({
      method: "POST" as const,
      url: "/v1/refunds/",
      token,
      payload,
    });

  badInputTable(
    () => ctx.request,
    [
      { name: "no token", request: () => post(valid(), null)(), status: 401 },
      { name: "a token without refunds:write (read only)", request: () => post(valid(), readToken)(), status: 403 },
      { name: "a missing order_id", request: () => post({ reason: "other", amount: 1 })(), status: 422, loc: ["body", "order_id"] },
      { name: "a non-UUID order_id", request: () => post({ ...valid(), order_id: "order-1" })(), status: 422, loc: ["body", "order_id"] },
      {
        name: "another organization's order (not visible: 422 Order not found)",
        request: () => post({ ...valid(), order_id: foreignOrderId })(),
        status: 422,
        loc: ["body", "order_id"],
      },
      {
        name: "an unknown order",
        request: () => post({ ...valid(), order_id: "3f2b1c4d-1111-4222-8333-123456789abc" })(),
        status: 422,
        loc: ["body", "order_id"],
      },
      { name: "a missing reason", request: () => post({ order_id: orderId, amount: 1 })(), status: 422, loc: ["body", "reason"] },
      { name: "an unknown reason", request: () => post({ ...valid(), reason: "bored" })(), status: 422, loc: ["body", "reason"] },
      {
        name: "the system-only reason dispute_prevention",
        request: () => post({ ...valid(), reason: "dispute_prevention" })(),
        status: 422,
        loc: ["body", "reason"],
      },
      { name: "a missing amount", request: () => post({ order_id: orderId, reason: "other" })(), status: 422, loc: ["body", "amount"] },
      { name: "amount 0", request: () => post({ ...valid(), amount: 0 })(), status: 422, loc: ["body", "amount"] },
      { name: "a negative amount", request: () => post({ ...valid(), amount: -5 })(), status: 422, loc: ["body", "amount"] },
      { name: "a fractional amount", request: () => post({ ...valid(), amount: 1.5 })(), status: 422, loc: ["body", "amount"] },
      { name: "an amount as text", request: () => post({ ...valid(), amount: "100" })(), status: 422, loc: ["body", "amount"] },
      { name: "an amount beyond the bound", request: () => post({ ...valid(), amount: 1e15 })(), status: 422, loc: ["body", "amount"] },
      { name: "an amount above refundable", request: () => post({ ...valid(), amount: 1001 })(), status: 422, loc: ["body", "amount"] },
      {
        name: "an overlong comment",
        request: () => post({ ...valid(), comment: "x".repeat(10_001) })(),
        status: 422,
        loc: ["body", "comment"],
      },
      { name: "a comment of the wrong type", request: () => post({ ...valid(), comment: 5 })(), status: 422, loc: ["body", "comment"] },
      {
        name: "revoke_benefits as text",
        request: () => post({ ...valid(), revoke_benefits: "yes" })(),
        status: 422,
        loc: ["body", "revoke_benefits"],
      },
      {
        name: "a metadata key over 40 characters",
        request: () => post({ ...valid(), metadata: { ["k".repeat(41)]: "v" } })(),
        status: 422,
      },
      {
        name: "a metadata value over 500 characters",
        request: () => post({ ...valid(), metadata: { note: "v".repeat(501) } })(),
        status: 422,
      },
      { name: "metadata as a list", request: () => post({ ...valid(), metadata: ["a"] })(), status: 422, loc: ["body", "metadata"] },
      { name: "a body that is not an object", request: () => post([] as unknown as Record<string, unknown>)(), status: 422 },
    ],
    async () => {
      expect(await refundWrites(ctx)).toEqual(before);
      expect(await orderRow(ctx, orderId)).toMatchObject({ status: "paid", refunded_amount: 0 });
    },
  );
});
