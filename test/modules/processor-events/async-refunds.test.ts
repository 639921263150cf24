import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentProcessor, RefundRequest } from "../../../src/adapters/payment-processors/payment-processor.ts";
import { sandboxProcessor } from "../../../src/adapters/payment-processors/sandbox.processor.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { orderRow, paidOrder } from "../refunds/refund-helpers.ts";
import { eventTypesOf } from "../subscriptions/subscription-helpers.ts";
import { STRIPE_ENV, deliver, runEventJobs, storedEvents, stripeEvent } from "./stripe-webhook-helpers.ts";

/** What the processor does while it is asked for a refund (before the refund's transaction commits). */
let duringRefund: (request: RefundRequest, reference: string) => Promise<void> = async () => {};

/** Stripe as it answers most refunds of card payments: accepted, pending, settled later by its events. */
const pendingRefunds: PaymentProcessor = {
  ...sandboxProcessor,
  refund: async (request) => {
    const reference = `re_${request.refundId.replaceAll("-", "").slice(0, 24)}`;
    await duringRefund(request, reference);
    return { status: "pending", reference };
  },
};

let ctx: TestContext;
let orgId: string;
let checkoutToken: string;
let refundToken: string;

beforeAll(async () => {
  ctx = await createTestContext({ env: STRIPE_ENV, adapters: { payments: pendingRefunds } });
  orgId = (await createOrganization(ctx.deps)).id;
  checkoutToken = await createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]);
  refundToken = await createOrganizationToken(ctx.deps, orgId, ["refunds:write", "refunds:read"]);
});
afterAll(() => ctx.close());

const refundObject = (reference: string, refundId: string | null, status: string, extra: Record<string, unknown> = {}) => ({
  id: reference,
  object: "refund",
  amount: 1200,
  currency: "eur",
  status,
  payment_intent: "pi_test",
  failure_reason: null,
  metadata: refundId === null ? {} : { refund_id: refundId },
  ...extra,
});

/** Delivers a `refund.*` event and runs the event jobs, as the worker would. */
async function settle(type: "refund.created" | "refund.updated" | "refund.failed", refund: ReturnType<typeof refundObject>) {
  const response = await deliver(ctx, stripeEvent(type, refund));
  expect(response.statusCode, response.body).toBe(202);
  await runEventJobs(ctx);
}

async function refundPending(orderId: string, amount: number) {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/refunds/",
    token: refundToken,
    payload: { order_id: orderId, reason: "customer_request", amount },
  });
  expect(response.statusCode, response.body).toBe(201);
  const refund = response.json<{ id: string; status: string; tax_amount: number }>();
  expect(refund.status).toBe("pending");
  const row = await ctx.deps.db.selectFrom("refunds").selectAll().where("id", "=", refund.id).executeTakeFirstOrThrow();
  return { ...refund, reference: row.processor_reference! };
}

const refundRow = (id: string) => ctx.deps.db.selectFrom("refunds").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const totals = async (orderId: string) => {
  const order = await orderRow(ctx, orderId);
  return { status: order.status, refunded_amount: order.refunded_amount, refunded_tax_amount: order.refunded_tax_amount };
};
const UNREFUNDED = { status: "paid", refunded_amount: 0, refunded_tax_amount: 0 };

describe("refunds Stripe settles later", () => {
  it("keeps a pending refund off the order until refund.updated says succeeded, then books it once", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2500 });
    const refund = await refundPending(order.id, 1000);
    expect(refund.reference).toMatch(/^re_/);
    expect(await totals(order.id)).toEqual(UNREFUNDED);

    await settle("refund.created", refundObject(refund.reference, refund.id, "pending"));
    expect((await refundRow(refund.id)).status).toBe("pending");
    expect(await totals(order.id)).toEqual(UNREFUNDED);

    await settle("refund.updated", refundObject(refund.reference, refund.id, "succeeded"));
    expect((await refundRow(refund.id)).status).toBe("succeeded");
    const booked = { status: "partially_refunded", refunded_amount: 1000, refunded_tax_amount: refund.tax_amount };
    expect(refund.tax_amount).toBe(200);
    expect(await totals(order.id)).toEqual(booked);
    expect(await eventTypesOf(ctx, refund.id)).toEqual(["refund.created", "refund.updated", "refund.updated"]);
    expect((await eventTypesOf(ctx, order.id)).filter((type) => type === "order.refunded")).toHaveLength(1);

    // The same news again, under another event id (Stripe sends refund.updated for other changes too): counted once.
    await settle("refund.updated", refundObject(refund.reference, refund.id, "succeeded"));
    await settle("refund.created", refundObject(refund.reference, refund.id, "pending"));
    expect(await totals(order.id)).toEqual(booked);
    expect(await eventTypesOf(ctx, refund.id)).toHaveLength(3);

    // Stripe could not return the money after all: the refund fails and comes off the order.
    await settle("refund.failed", refundObject(refund.reference, refund.id, "failed", { failure_reason: "lost_or_stolen_card" }));
    expect(await refundRow(refund.id)).toMatchObject({ status: "failed", failure_message: "The refund failed: lost_or_stolen_card." });
    expect(await totals(order.id)).toEqual(UNREFUNDED);
    expect(await eventTypesOf(ctx, refund.id)).toEqual(["refund.created", "refund.updated", "refund.updated", "refund.updated"]);
  });

  it("closes a pending refund failed on refund.failed, the order untouched, and ignores later news of it", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2500 });
    const refund = await refundPending(order.id, 2500);
    await settle("refund.failed", refundObject(refund.reference, refund.id, "failed", { failure_reason: "expired_or_canceled_card" }));
    expect(await refundRow(refund.id)).toMatchObject({ status: "failed", failure_message: "The refund failed: expired_or_canceled_card." });
    expect(await totals(order.id)).toEqual(UNREFUNDED);

    // A stale success after the failure changes nothing: a failed refund stays failed.
    await settle("refund.updated", refundObject(refund.reference, refund.id, "succeeded"));
    expect((await refundRow(refund.id)).status).toBe("failed");
    expect(await totals(order.id)).toEqual(UNREFUNDED);
    // The failed refund no longer holds the amount: the whole order can be refunded again.
    const again = await refundPending(order.id, 2500);
    await settle("refund.updated", refundObject(again.reference, again.id, "succeeded"));
    expect(await totals(order.id)).toEqual({ status: "refunded", refunded_amount: 2500, refunded_tax_amount: 500 });
  });

  it("counts pending refunds as holding their amount: no second refund gives back more than was paid", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2500 });
    const first = await refundPending(order.id, 2000);
    expect(first.tax_amount).toBe(400);
    const over = await ctx.request({
      method: "POST",
      url: "/v1/refunds/",
      token: refundToken,
      payload: { order_id: order.id, reason: "customer_request", amount: 501 },
    });
    expect(over.statusCode, over.body).toBe(422);
    // What is left once the pending refund is counted, with all the tax that is left.
    const rest = await refundPending(order.id, 500);
    expect(rest.tax_amount).toBe(100);
    await settle("refund.updated", refundObject(first.reference, first.id, "succeeded"));
    await settle("refund.updated", refundObject(rest.reference, rest.id, "succeeded"));
    expect(await totals(order.id)).toEqual({ status: "refunded", refunded_amount: 2500, refunded_tax_amount: 500 });
  });

  it("records nothing for a refund made outside this server (no refund id in its metadata), and marks the event handled", async () => {
    const before = await ctx.deps.db.selectFrom("refunds").select("id").execute();
    await settle("refund.updated", refundObject("re_dashboard", null, "succeeded"));
    expect(await ctx.deps.db.selectFrom("refunds").select("id").execute()).toEqual(before);
    const stored = (await storedEvents(ctx)).filter(
      (row) => (row.payload as { data: { object: { id: string } } }).data.object.id === "re_dashboard",
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]!.handled_at).toBeInstanceOf(Date);
  });

  it("retries an event that arrives before the refund's own transaction commits, then applies it", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2500 });
    // Stripe calls the webhook before answering the refund request, and the worker picks it up at once.
    duringRefund = async (request, reference) => {
      const response = await deliver(ctx, stripeEvent("refund.updated", refundObject(reference, request.refundId, "succeeded")));
      expect(response.statusCode).toBe(202);
      await runEventJobs(ctx);
    };
    let refund: Awaited<ReturnType<typeof refundPending>>;
    try {
      refund = await refundPending(order.id, 500);
    } finally {
      duringRefund = async () => {};
    }
    // The job ran once, found no refund yet, failed, and is waiting for its retry; nothing was applied.
    const { rows: jobs } = await sql<{ attempts: number; last_error: string | null }>`
      SELECT j.attempts, j.last_error FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = 'processor_events.handle'`.execute(ctx.deps.db);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ attempts: 1, last_error: expect.stringContaining("not committed yet") });
    expect((await refundRow(refund.id)).status).toBe("pending");
    expect(await totals(order.id)).toEqual(UNREFUNDED);

    // The retry, once due, finds the committed refund.
    await sql`UPDATE graphile_worker._private_jobs SET run_at = now()`.execute(ctx.deps.db);
    await runEventJobs(ctx);
    expect((await refundRow(refund.id)).status).toBe("succeeded");
    expect(await totals(order.id)).toEqual({ status: "partially_refunded", refunded_amount: 500, refunded_tax_amount: 100 });
  });
});
