import { Logger, runOnce, type JobHelpers } from "graphile-worker";
import { sql } from "kysely";
import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createStripeProcessor } from "../../../src/adapters/payment-processors/stripe.processor.ts";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { buildServices } from "../../../src/services.ts";
import { taskList } from "../../../src/tasks.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { FR_ADDRESS, eventsFor, openCheckoutThroughApi } from "./checkout-helpers.ts";

// A buyer who leaves a checkout at its 3-D Secure step: when the session expires, the PaymentIntent
// still waiting for them is canceled at Stripe by the expiry job, so it can no longer take money for
// a session nobody waits on; a payment that got through before the cancel is completed, never lost;
// an unreachable Stripe leaves the job to be retried. Stripe's events are not delivered here: the
// expiry job alone is what settles these sessions.

let ctx: TestContext;
let stripe: StripeStandIn;
let sdk: Stripe;
let close: () => Promise<void>;
let token: string;
let productId: string;

beforeAll(async () => {
  ({ ctx, stripe, sdk, close } = await openStripeContext());
  const org = await createOrganization(ctx.deps);
  await registerForTax(ctx.deps, org.id);
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
  productId = (await createProduct(ctx.deps, org.id)).product.id;
});
afterEach(() => stripe.assertNoViolations());
afterAll(() => close());

/** A session confirmed with a card that needs 3-D Secure, left waiting at that step; the clock then moved past its expiry. */
async function abandonedAtThreeDSecure() {
  ctx.clock.set(new Date());
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId] });
  const response = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: {
      customer_email: `${session.id}@example.com`,
      customer_name: "Abe Abandon",
      customer_billing_address: { ...FR_ADDRESS, country: "FR" },
      confirmation_token_id: (await sdk.testHelpers.confirmationTokens.create({ payment_method: "pm_card_authenticationRequired" })).id,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const intentId = response.json<{ payment_processor_metadata: Record<string, string> }>().payment_processor_metadata.intent_id!;
  expect((await sdk.paymentIntents.retrieve(intentId)).status).toBe("requires_action");
  ctx.clock.set(new Date(new Date(String(session.expires_at)).getTime() + 1000));
  return { checkoutId: session.id, intentId };
}

const expireTask = () => taskList(ctx.deps, ctx.services)[TaskName.checkoutExpire]!;
const runExpiry = (checkoutId: string) => expireTask()({ checkoutId }, {} as JobHelpers);
const checkoutOf = (id: string) => ctx.deps.db.selectFrom("checkouts").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const ordersOf = (checkoutId: string) => ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", checkoutId).execute();
const expiryJobs = (checkoutId: string) => queuedJobs(ctx.deps.db, { key: `${TaskName.checkoutExpire}:${checkoutId}` });
const cancels = (intentId: string) => stripe.requests.filter((request) => request.path === `/v1/payment_intents/${intentId}/cancel`);

// The failing run is expected: graphile-worker's own report of it would only clutter the output.
const silent = new Logger(() => () => {});

/** Makes the session's stored expiry job due now, as if the worker had reached it, and runs due jobs once with `tasks`. */
async function runQueuedExpiry(checkoutId: string, tasks: ReturnType<typeof taskList>) {
  await sql`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key = ${`${TaskName.checkoutExpire}:${checkoutId}`}`.execute(
    ctx.deps.db,
  );
  await runOnce({ pgPool: ctx.database.pool, logger: silent, taskList: { [TaskName.checkoutExpire]: tasks[TaskName.checkoutExpire]! } });
}

describe("a checkout abandoned at 3-D Secure", () => {
  it("has its PaymentIntent canceled at Stripe when the session expires, keyed by the intent, and the session expired", async () => {
    const { checkoutId, intentId } = await abandonedAtThreeDSecure();
    await runExpiry(checkoutId);

    expect(cancels(intentId)).toEqual([
      expect.objectContaining({
        method: "POST",
        params: expect.objectContaining({ cancellation_reason: "abandoned" }),
        idempotencyKey: `cancel:${intentId}`,
      }),
    ]);
    expect(await sdk.paymentIntents.retrieve(intentId)).toMatchObject({ status: "canceled", cancellation_reason: "abandoned" });
    const checkout = await checkoutOf(checkoutId);
    expect(checkout.status).toBe("expired");
    expect(checkout.payment_processor_metadata).not.toHaveProperty("intent_id");
    expect(checkout.payment_processor_metadata).not.toHaveProperty("intent_client_secret");
    expect((await eventsFor(ctx, checkoutId)).at(-1)).toBe("checkout.expired");
    expect(await ordersOf(checkoutId)).toEqual([]);
    // The buyer coming back to the challenge can no longer pay, and a second run asks Stripe nothing more.
    await expect(stripe.authenticate(intentId, "succeeded")).rejects.toThrow();
    await runExpiry(checkoutId);
    expect(cancels(intentId)).toHaveLength(1);
    expect((await eventsFor(ctx, checkoutId)).filter((type) => type === "checkout.expired")).toHaveLength(1);
  });

  it("completes, as paid, a payment the buyer finished before the cancel reached Stripe", async () => {
    const { checkoutId, intentId } = await abandonedAtThreeDSecure();
    // Authenticated at the last moment; Stripe's events are not delivered, so only the expiry can learn of it.
    await stripe.authenticate(intentId, "succeeded");
    await runExpiry(checkoutId);

    expect(cancels(intentId)).toHaveLength(1);
    expect((await sdk.paymentIntents.retrieve(intentId)).status).toBe("succeeded");
    expect((await checkoutOf(checkoutId)).status).toBe("succeeded");
    const orders = await ordersOf(checkoutId);
    expect(orders.map((order) => order.status)).toEqual(["paid"]);
    const payments = await ctx.deps.db.selectFrom("payments").selectAll().where("order_id", "=", orders[0]!.id).execute();
    expect(payments.map((payment) => [payment.status, payment.processor_reference])).toEqual([["succeeded", intentId]]);
  });

  it("keeps the cancel while Stripe cannot be reached: the expiry job fails and is retried until Stripe answers", async () => {
    const { checkoutId, intentId } = await abandonedAtThreeDSecure();
    const payments = ctx.deps.config.payments;
    if (payments.processor !== "stripe") throw new Error("the test app runs Stripe");
    const unreachable = createStripeProcessor({ ...payments.stripe, apiUrl: new URL("http://127.0.0.1:9") });
    await runQueuedExpiry(checkoutId, taskList(ctx.deps, buildServices(ctx.deps, { payments: unreachable })));

    // Failed, so graphile-worker keeps it for a later run (it records the failure a moment after runOnce returns).
    await vi.waitFor(async () => {
      const [job] = await expiryJobs(checkoutId);
      expect(job?.locked_at).toBeNull();
      expect(job!.run_at.getTime()).toBeGreaterThan(job!.now.getTime());
    });
    expect((await checkoutOf(checkoutId)).status).toBe("confirmed");
    expect((await sdk.paymentIntents.retrieve(intentId)).status).toBe("requires_action");

    await runQueuedExpiry(checkoutId, taskList(ctx.deps, ctx.services));
    // graphile-worker records a job's end a moment after runOnce returns: wait for it to leave the queue.
    await vi.waitFor(async () => expect(await expiryJobs(checkoutId)).toEqual([]));
    expect((await sdk.paymentIntents.retrieve(intentId)).status).toBe("canceled");
    expect((await checkoutOf(checkoutId)).status).toBe("expired");
  });

  it("brings the expiry forward when the 3-D Secure answer is recorded after the session expired (a confirm just before it)", async () => {
    const { checkoutId } = await abandonedAtThreeDSecure();
    // The session's expiry job ran (and found it confirmed, not yet waiting) before the confirm's answer was recorded.
    const checkout = await checkoutOf(checkoutId);
    await ctx.deps.db
      .updateTable("checkouts")
      .set({ payment_processor_metadata: JSON.stringify({ publishable_key: checkout.payment_processor_metadata.publishable_key }) })
      .where("id", "=", checkoutId)
      .execute();
    await sql`DELETE FROM graphile_worker._private_jobs WHERE key = ${`${TaskName.checkoutExpire}:${checkoutId}`}`.execute(ctx.deps.db);
    // The recovery job records the intent's answer now.
    await ctx.services.checkoutConfirmation.settleFromProcessor(checkoutId, checkout.payment_processor_metadata.intent_id!);
    const [job] = await expiryJobs(checkoutId);
    expect(job?.run_at.getTime()).toBe(ctx.clock.now().getTime());
  });
});
