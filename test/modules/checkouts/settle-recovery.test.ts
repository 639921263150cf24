import type { JobHelpers } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleCheckoutTask } from "../../../src/modules/checkouts/checkouts.tasks.ts";
import { sandboxProcessor } from "../../../src/adapters/payment-processors/sandbox.processor.ts";
import type { PaymentProcessor } from "../../../src/adapters/payment-processors/payment-processor.ts";
import { buildServices } from "../../../src/services.ts";
import type { TestContext } from "../../helpers/context.ts";
import { FR_ADDRESS, openCheckoutContext } from "./checkout-helpers.ts";

let ctx: TestContext;
let token: string;
let productId: string;

beforeAll(async () => {
  ({ ctx, token, productId } = await openCheckoutContext());
});
afterAll(() => ctx.close());

const open = async () =>
  (
    await ctx.request({
      method: "POST",
      url: "/v1/checkouts/",
      token,
      payload: { products: [productId], customer_email: "r@example.com", customer_billing_address: FR_ADDRESS },
    })
  ).json<{
    id: string;
    client_secret: string;
  }>();
const settleJob = (id: string) =>
  ctx.deps.db
    // The public `jobs` view leaves the payload out.
    .selectFrom("graphile_worker._private_jobs" as never)
    .select(["payload" as never, "run_at" as never])
    .where("key" as never, "=", `checkout.settle:${id}` as never)
    .executeTakeFirst() as Promise<{ payload: { checkoutId: string; confirmationToken: string | null }; run_at: Date } | undefined>;
const statusOf = async (id: string) =>
  (await ctx.deps.db.selectFrom("checkouts").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status;

describe("checkout.settle recovery job", () => {
  it("is dropped once the confirm request settles the session itself", async () => {
    const session = await open();
    expect(
      (
        await ctx.request({
          method: "POST",
          url: `/v1/checkouts/client/${session.client_secret}/confirm`,
          payload: { confirmation_token_id: "tok_visa" },
        })
      ).statusCode,
    ).toBe(200);
    expect(await settleJob(session.id)).toBeUndefined();
  });

  it("completes a session whose confirm request died after confirming, exactly once", async () => {
    const session = await open();
    const crashing: PaymentProcessor = { ...sandboxProcessor, charge: async () => Promise.reject(new Error("connection reset")) };
    await expect(
      buildServices(ctx.deps, { payments: crashing }).checkoutClient.confirm(session.client_secret, { confirmation_token_id: "tok_visa" }),
    ).rejects.toThrow("connection reset");
    expect(await statusOf(session.id)).toBe("confirmed");
    const job = await settleJob(session.id);
    expect(job?.payload).toEqual({ checkoutId: session.id, confirmationToken: "tok_visa" });
    expect(job!.run_at.getTime() - ctx.clock.now().getTime()).toBe(5 * 60 * 1000);

    const task = settleCheckoutTask(ctx.services.checkoutConfirmation);
    await task(job!.payload, {} as JobHelpers);
    await task(job!.payload, {} as JobHelpers);
    expect(await statusOf(session.id)).toBe("succeeded");
    const orders = await ctx.deps.db
      .selectFrom("orders")
      .select(["status", "total_amount"])
      .where("checkout_id", "=", session.id)
      .execute();
    expect(orders).toEqual([{ status: "paid", total_amount: 3000 }]);
  });

  it("reopens the session when the recovered payment turns out declined", async () => {
    const session = await open();
    const crashing: PaymentProcessor = { ...sandboxProcessor, charge: async () => Promise.reject(new Error("timeout")) };
    await expect(
      buildServices(ctx.deps, { payments: crashing }).checkoutClient.confirm(session.client_secret, {
        confirmation_token_id: "tok_chargeDeclined",
      }),
    ).rejects.toThrow("timeout");
    await settleCheckoutTask(ctx.services.checkoutConfirmation)(
      { checkoutId: session.id, confirmationToken: "tok_chargeDeclined" },
      {} as JobHelpers,
    );
    expect(await statusOf(session.id)).toBe("open");
  });
});
