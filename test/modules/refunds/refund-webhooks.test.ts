import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending } from "../../helpers/webhooks.ts";
import { paidOrder } from "./refund-helpers.ts";

// The webhooks a refund sends reach an endpoint signed, and the official SDK's `validateEvent`
// parses each one into its model (a Refund, an Order).

let ctx: TestContext;
beforeAll(async () => {
  ({ ctx } = await openOrganizationContext());
});
afterAll(() => ctx.close());
const { engine, receiver, closeReceivers } = deliveryHarness(() => ctx);
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});

const TYPES = ["refund.created", "refund.updated", "order.updated", "order.refunded"] as const;
const ONE_REFUND = ["refund.created", "order.updated", "order.refunded", "refund.updated"];

describe("the webhooks of a refund", () => {
  it("are each parsed by the SDK's validateEvent: a partial refund, then the full remainder", async () => {
    const organizationId = (await createOrganization(ctx.deps)).id;
    const checkoutToken = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write"]);
    const refundToken = await createOrganizationToken(ctx.deps, organizationId, ["refunds:write"]);
    const order = await paidOrder(ctx, organizationId, checkoutToken, { price: 2000 });
    // The purchase's events go out before the endpoint exists: only the refunds' reach it.
    await fanOutPending(ctx.deps, engine());
    const hook = await receiver();
    const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: [...TYPES] });

    for (const amount of [500, 1500]) {
      const response = await ctx.request({
        method: "POST",
        url: "/v1/refunds/",
        token: refundToken,
        payload: { order_id: order.id, reason: "customer_request", amount, metadata: { source: "test" } },
      });
      expect(response.statusCode, response.body).toBe(201);
    }

    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received.map((request) => (JSON.parse(request.body) as { type: string }).type)).toEqual([...ONE_REFUND, ...ONE_REFUND]);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ctx.clock.now());
    const parsed = [];
    for (const request of hook.received) parsed.push(await webhooks.validateEvent(request.body, request.headers, endpoint.secret));
    const refunded = parsed.flatMap((event) => (event.type === "order.refunded" ? [event.data] : []));
    expect(refunded.map((data) => [data.status, data.refunded_amount, data.refunded_tax_amount])).toEqual([
      ["partially_refunded", 500, 100],
      ["refunded", 2000, 400],
    ]);
    const created = parsed.flatMap((event) => (event.type === "refund.created" ? [event.data] : []));
    expect(created.map((data) => [data.status, data.amount, data.tax_amount, data.order_id, data.metadata])).toEqual([
      ["pending", 500, 100, order.id, { source: "test" }],
      ["pending", 1500, 300, order.id, { source: "test" }],
    ]);
    const updated = parsed.flatMap((event) => (event.type === "refund.updated" ? [event.data.status] : []));
    expect(updated).toEqual(["succeeded", "succeeded"]);
  });
});
