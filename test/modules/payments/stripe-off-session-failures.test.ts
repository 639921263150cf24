import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";

// Renewals charged off-session through Stripe that fail for good: a decline code that rules out a
// retry sends dunning straight to its deadline, and a saved card Stripe no longer accepts is
// forgotten before failing as a decline does. Months of renewals run on the organization's test
// clock, over HTTP, against the Stripe stand-in.

const DAY = 86_400_000;
/** Dunning's deadline after the first failure: 21 days and a minute (docs/decisions.md, "Failed payments"). */
const DEADLINE_MS = 21 * DAY + 60_000;

let ctx: TestContext;
let stripe: StripeStandIn;
let sdk: Stripe;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ctx, stripe, sdk, close } = await openStripeContext());
});
afterEach(() => stripe.assertNoViolations());
afterAll(() => close());

/** An organization of its own (its own test clock) selling a monthly plan, and its token. */
async function shop() {
  const org = await createOrganization(ctx.deps);
  await registerForTax(ctx.deps, org.id);
  const token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write", "payments:read", "subscriptions:write"]);
  const { product } = await createProduct(ctx.deps, org.id, {
    product: { recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  return { token, productId: product.id };
}

/** Subscribes through the checkout with a card that works, and answers the subscription and its saved Stripe card. */
async function subscribe(token: string, productId: string) {
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId] });
  const confirmed = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: {
      customer_email: `${session.id}@example.com`,
      customer_name: "Sam Subscriber",
      customer_billing_address: { ...FR_ADDRESS, country: "FR" },
      confirmation_token_id: (await sdk.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" })).id,
    },
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const subscription = await ctx.deps.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("checkout_id", "=", session.id)
    .executeTakeFirstOrThrow();
  const method = await ctx.deps.db
    .selectFrom("payment_methods")
    .selectAll()
    .where("id", "=", subscription.payment_method_id!)
    .executeTakeFirstOrThrow();
  return { subscription, method };
}

/** Moves the organization's test clock `days` on, or to a moment (`Date`), running what came due meanwhile. */
async function advance(token: string, by: number | Date) {
  const payload = typeof by === "number" ? { seconds: by * 86_400 } : { to: by.toISOString() };
  const response = await ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ renewals: number; payment_retries: number }>();
}

const subscriptionRead = async (token: string, id: string) =>
  (await ctx.request({ method: "GET", url: `/v1/subscriptions/${id}`, token })).json<{ status: string; ended_at: string | null }>();
const ordersOf = (subscriptionId: string) =>
  ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", subscriptionId).orderBy("created_at").execute();
async function paymentsOf(token: string, orderId: string) {
  const response = await ctx.request({ method: "GET", url: `/v1/payments/?order_id=${orderId}&sorting=created_at`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ items: { status: string; trigger: string; decline_reason: string | null; decline_message: string | null }[] }>()
    .items;
}

describe("a renewal declined with a code that rules out a retry", () => {
  it("renews for months, then a card reported lost goes past due with its next attempt at the deadline, and one last failure there revokes", async () => {
    const { token, productId } = await shop();
    const { subscription, method } = await subscribe(token, productId);
    // Two months renew on the saved card.
    expect(await advance(token, 62)).toMatchObject({ renewals: 2, payment_retries: 0 });
    expect((await ordersOf(subscription.id)).map((order) => order.status)).toEqual(["paid", "paid", "paid"]);

    stripe.changeCard(method.processor_reference, "pm_card_chargeDeclinedLostCard");
    expect(await advance(token, 31)).toMatchObject({ renewals: 1, payment_retries: 0 });
    const due = (await ordersOf(subscription.id)).at(-1)!;
    const pastDue = await ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscription.id).executeTakeFirstOrThrow();
    expect(pastDue.status).toBe("past_due");
    expect(due.status).toBe("pending");
    // Not the two days of a recoverable decline: the deadline itself.
    expect(due.next_payment_attempt_at!.getTime()).toBe(pastDue.past_due_at!.getTime() + DEADLINE_MS);
    expect(await paymentsOf(token, due.id)).toEqual([
      expect.objectContaining({ status: "failed", trigger: "subscription_cycle", decline_reason: "lost_card" }),
    ]);

    // Nothing is retried on the usual schedule (2, 7, 14 days after the failure).
    const failedAt = pastDue.past_due_at!.getTime();
    expect(await advance(token, new Date(failedAt + 20 * DAY))).toMatchObject({ payment_retries: 0 });
    expect((await subscriptionRead(token, subscription.id)).status).toBe("past_due");
    // At the deadline: one attempt, declined again, and the subscription is revoked.
    expect(await advance(token, new Date(failedAt + DEADLINE_MS))).toMatchObject({ payment_retries: 1 });
    expect(await subscriptionRead(token, subscription.id)).toMatchObject({ status: "canceled", ended_at: expect.any(String) });
    expect((await ordersOf(subscription.id)).at(-1)).toMatchObject({ id: due.id, status: "void", next_payment_attempt_at: null });
    expect((await paymentsOf(token, due.id)).map((payment) => [payment.trigger, payment.decline_reason])).toEqual([
      ["subscription_cycle", "lost_card"],
      ["retry_dunning", "lost_card"],
    ]);
  });

  it("keeps the usual schedule for a decline worth retrying (insufficient funds): the next attempt two days on", async () => {
    const { token, productId } = await shop();
    const { subscription, method } = await subscribe(token, productId);
    stripe.changeCard(method.processor_reference, "pm_card_chargeDeclinedInsufficientFunds");
    await advance(token, 31);
    const due = (await ordersOf(subscription.id)).at(-1)!;
    const pastDue = await ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscription.id).executeTakeFirstOrThrow();
    expect(pastDue.status).toBe("past_due");
    expect(due.next_payment_attempt_at!.getTime()).toBe(pastDue.past_due_at!.getTime() + 2 * DAY);
    expect((await paymentsOf(token, due.id))[0]).toMatchObject({ decline_reason: "insufficient_funds" });
    expect(await advance(token, 2)).toMatchObject({ payment_retries: 1 });
  });
});

/** Ways a saved card stops being this customer's at Stripe without this server hearing of it (the event lost). */
const TAKEN_AWAY = {
  // Detached (its dashboard, another integration).
  detached: (reference: string) => sdk.paymentMethods.detach(reference),
  // Detached, then attached to someone else.
  "another customer's": async (reference: string) => {
    await sdk.paymentMethods.detach(reference);
    const other = await sdk.customers.create({ email: "other@example.com" });
    await sdk.paymentMethods.attach(reference, { customer: other.id });
  },
};

describe("a saved card Stripe no longer accepts", () => {
  it.each(Object.entries(TAKEN_AWAY))(
    "(%s) is forgotten when its renewal is refused, and the renewal fails into dunning as a decline does",
    async (_, takeAway) => {
      const { token, productId } = await shop();
      const { subscription, method } = await subscribe(token, productId);
      expect(await advance(token, 31)).toMatchObject({ renewals: 1 });
      await takeAway(method.processor_reference);
      const charged = stripe.requests.filter((request) => request.path === "/v1/payment_intents").length;

      expect(await advance(token, 31)).toMatchObject({ renewals: 1 });
      expect(stripe.requests.filter((request) => request.path === "/v1/payment_intents").length).toBe(charged + 1);
      const forgotten = await ctx.deps.db.selectFrom("payment_methods").selectAll().where("id", "=", method.id).executeTakeFirstOrThrow();
      expect(forgotten.deleted_at).not.toBeNull();
      const row = await ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscription.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "past_due", payment_method_id: null });
      const due = (await ordersOf(subscription.id)).at(-1)!;
      expect(due.status).toBe("pending");
      expect(due.next_payment_attempt_at!.getTime()).toBe(row.past_due_at!.getTime() + 2 * DAY);
      expect(await paymentsOf(token, due.id)).toEqual([
        expect.objectContaining({ status: "failed", trigger: "subscription_cycle", decline_reason: null }),
      ]);

      // With no card left, dunning charges nothing more at Stripe: the retry fails at once, asking for a card.
      expect(await advance(token, 2)).toMatchObject({ payment_retries: 1 });
      expect(stripe.requests.filter((request) => request.path === "/v1/payment_intents").length).toBe(charged + 1);
    },
  );
});
