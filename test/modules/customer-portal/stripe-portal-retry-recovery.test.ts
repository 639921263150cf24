import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PaymentProcessor } from "../../../src/adapters/payment-processors/payment-processor.ts";
import { createStripeProcessor } from "../../../src/adapters/payment-processors/stripe.processor.ts";
import { buildApp } from "../../../src/app.ts";
import { buildServices } from "../../../src/services.ts";
import type { TestContext } from "../../helpers/context.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { WEBHOOK_URL, runEventJobs } from "../processor-events/stripe-webhook-helpers.ts";
import { orderOf, subscriptionOf } from "./payment-helpers.ts";
import { stripeRetryHelpers } from "./stripe-retry-helpers.ts";

// The portal's retry on Stripe when something fails between Stripe and this server: a request
// that dies after Stripe took the money, and a status read that cannot reach Stripe.

let ctx: TestContext;
let stripe: StripeStandIn;
let sdk: Stripe;
let close: () => Promise<void>;
let helpers: ReturnType<typeof stripeRetryHelpers>;

beforeAll(async () => {
  ({ ctx, stripe, sdk, close } = await openStripeContext({ webhookPath: WEBHOOK_URL }));
  helpers = stripeRetryHelpers(ctx, sdk);
});
afterEach(async () => {
  await stripe.delivered();
  stripe.assertNoViolations();
});
afterAll(() => close());

/** An app on the test's database whose processor is `payments` (one request's own services). */
async function appWith(payments: PaymentProcessor) {
  return buildApp(ctx.deps, { logger: false, services: buildServices(ctx.deps, { payments }) });
}

describe("POST /v1/customer-portal/orders/{id}/confirm-payment on Stripe, interrupted", () => {
  it("pays the order from Stripe's events when the request died after Stripe took the money: one payment, one order.paid", async () => {
    const { order, subscriptionId, portal } = await helpers.pastDueOrder("retry-crash@example.com");
    const real = ctx.services.payments;
    // The process dies right after Stripe answered: nothing of the answer is committed.
    const dying: PaymentProcessor = {
      ...real,
      chargeOnSession: async (request) => {
        await real.chargeOnSession(request);
        throw new Error("process killed");
      },
    };
    const app = await appWith(dying);
    try {
      const response = await app.inject({
        method: "POST",
        url: `/v1/customer-portal/orders/${order.id}/confirm-payment`,
        headers: { authorization: `Bearer ${portal}` },
        payload: { confirmation_token_id: await helpers.confirmationToken("pm_card_visa") },
      });
      expect(response.statusCode).toBe(500);
    } finally {
      await app.close();
    }
    expect(await helpers.retries(order.id)).toEqual([]);

    await stripe.delivered();
    await runEventJobs(ctx);
    const [paid, ...others] = await helpers.retries(order.id);
    expect(others).toEqual([]);
    expect(paid).toEqual(["succeeded", expect.stringMatching(/^pi_/), null]);
    expect((await sdk.paymentIntents.retrieve(String(paid![1]))).status).toBe("succeeded");
    expect(await orderOf(ctx, order.id)).toMatchObject({ status: "paid" });
    expect(await subscriptionOf(ctx, subscriptionId)).toMatchObject({ status: "active" });
    expect(await helpers.paidEvents(order.id)).toBe(1);
  });

  it("answers the stored status when Stripe cannot be reached for the read, and settles nothing", async () => {
    const { order, portal } = await helpers.pastDueOrder("retry-3ds-unreachable@example.com");
    const { intentId } = await helpers.waitingRetry(portal, order.id);
    const payments = ctx.deps.config.payments;
    if (payments.processor !== "stripe") throw new Error("the test app runs Stripe");
    const unreachable = createStripeProcessor({ ...payments.stripe, apiUrl: new URL("http://127.0.0.1:9") });
    const app = await appWith(unreachable);
    try {
      await stripe.authenticate(intentId, "succeeded");
      const response = await app.inject({
        method: "GET",
        url: `/v1/customer-portal/orders/${order.id}/payment-status`,
        headers: { authorization: `Bearer ${portal}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ status: "pending", error: null });
    } finally {
      await app.close();
    }
    // Reachable again: the next read settles it.
    expect(await helpers.paymentStatus(portal, order.id)).toEqual({ status: "succeeded", error: null });
  });
});
