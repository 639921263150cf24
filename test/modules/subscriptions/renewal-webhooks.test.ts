import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending } from "../../helpers/webhooks.ts";
import { buyThroughCheckout } from "./subscription-helpers.ts";

// The webhooks a subscription sends after its start — renewals, failed payments, changes, the end —
// reach an endpoint signed, and the official SDK's `validateEvent` parses every one of them.

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

const LATER_TYPES = [
  "subscription.updated",
  "subscription.cycled",
  "subscription.past_due",
  "subscription.canceled",
  "subscription.uncanceled",
  "subscription.revoked",
  "order.created",
  "order.updated",
  "order.paid",
] as const;

describe("the webhooks of a subscription's life after its start", () => {
  it("are each parsed by the SDK's validateEvent: a renewal paid, a renewal declined, cancel, uncancel and revoke", async () => {
    ctx.clock.set(new Date("2027-02-10T00:00:00.000Z"));
    const organizationId = (await createOrganization(ctx.deps)).id;
    const checkoutToken = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write"]);
    const writeToken = await createOrganizationToken(ctx.deps, organizationId, ["subscriptions:write"]);
    const plan = await createProduct(ctx.deps, organizationId, {
      product: { name: "Hooked monthly", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1500 }],
    });
    const paying = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "pays@example.com" } });
    const declined = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, {
      buyer: { customer_email: "declines@example.com" },
      card: "tok_chargeCustomerFail",
    });
    // The start's events are fanned out before the endpoint exists: only what happens from here on reaches it.
    await fanOutPending(ctx.deps, engine());
    const hook = await receiver();
    const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: [...LATER_TYPES] });

    ctx.clock.set(new Date("2027-03-10T00:00:00.000Z"));
    await ctx.services.subscriptionRenewals.sweep();
    const patch = (id: string, payload: Record<string, unknown>) =>
      ctx.request({ method: "PATCH", url: `/v1/subscriptions/${id}`, token: writeToken, payload });
    expect((await patch(paying.checkout.subscription_id, { cancel_at_period_end: true })).statusCode).toBe(200);
    expect((await patch(paying.checkout.subscription_id, { cancel_at_period_end: false })).statusCode).toBe(200);
    expect((await patch(declined.checkout.subscription_id, { revoke: true })).statusCode).toBe(200);

    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    const received = hook.received.map((request) => JSON.parse(request.body) as { type: string; data: { id: string } });
    expect(new Set(received.map((event) => event.type))).toEqual(new Set(LATER_TYPES));

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ctx.clock.now());
    for (const request of hook.received) {
      const event = await webhooks.validateEvent(request.body, request.headers, endpoint.secret);
      const sent = JSON.parse(request.body) as { type: string };
      expect(event.type).toBe(sent.type);
      if (event.type === "subscription.past_due" || event.type === "subscription.revoked")
        expect(event.data).toMatchObject({ id: declined.checkout.subscription_id });
      if (event.type === "subscription.past_due") expect(event.data.status).toBe("past_due");
      if (event.type === "subscription.revoked") expect(event.data.status).toBe("canceled");
      if (event.type === "subscription.cycled") expect(event.data.current_period_start).toBe("2027-03-10T00:00:00.000Z");
      if (event.type === "order.paid" && event.data.subscription_id === paying.checkout.subscription_id)
        expect(event.data.billing_reason).toBe("subscription_cycle");
    }
  });
});
