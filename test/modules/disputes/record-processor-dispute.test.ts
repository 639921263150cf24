import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, openOrganizationContext } from "../../helpers/factories.ts";
import { paidOrder } from "../refunds/refund-helpers.ts";
import { chargeOf, disputeRow, recordDispute } from "./dispute-helpers.ts";

// The step the processor's webhook inbox calls: a dispute found by the charge it names, created by
// its first event and moved by later ones in the processor's order.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken],
  } = await openOrganizationContext(["checkouts:write"]));
});
afterAll(() => ctx.close());

const seconds = (n: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, n));

describe("recordProcessorDispute", () => {
  it("creates the dispute of the charge's payment, the disputed total split as the order's total is", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    expect(order).toMatchObject({ total_amount: 1200, tax_amount: 200 });
    const whole = await recordDispute(ctx, order);
    const payment = await ctx.deps.db.selectFrom("payments").selectAll().where("order_id", "=", order.id).executeTakeFirstOrThrow();
    expect(whole).toMatchObject({
      organization_id: org.id,
      order_id: order.id,
      payment_id: payment.id,
      customer_id: order.customer_id,
      status: "needs_response",
      amount: 1000,
      tax_amount: 200,
      currency: order.currency,
      reason: "fraudulent",
      modified_at: null,
    });
    // A part of the charge: 600 of 1200, of which a sixth is tax.
    const part = await recordDispute(ctx, await paidOrder(ctx, org.id, checkoutToken, { price: 1000 }), { amount: 600 });
    expect(part).toMatchObject({ amount: 500, tax_amount: 100 });
    // An untaxed (US) order's dispute carries no tax.
    const untaxed = await recordDispute(ctx, await paidOrder(ctx, org.id, checkoutToken, { price: 1000, country: "US" }));
    expect(untaxed).toMatchObject({ amount: 1000, tax_amount: 0 });
  });

  it("moves the dispute by later events and never back by older ones", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken);
    const id = "dp_ordered";
    const created = await recordDispute(ctx, order, { processorDisputeId: id, processorEventCreatedAt: seconds(10) });
    const review = await recordDispute(ctx, order, {
      processorDisputeId: id,
      status: "under_review",
      reason: "product_not_received",
      evidenceDueBy: null,
      processorEventCreatedAt: seconds(20),
    });
    expect(review).toMatchObject({ id: created!.id, status: "under_review", reason: "product_not_received", evidence_due_by: null });
    expect(review!.modified_at).not.toBeNull();
    // The `created` event redelivered late changes nothing.
    const late = await recordDispute(ctx, order, { processorDisputeId: id, processorEventCreatedAt: seconds(15) });
    expect(late).toMatchObject({ id: created!.id, status: "under_review" });
    const won = await recordDispute(ctx, order, { processorDisputeId: id, status: "won", processorEventCreatedAt: seconds(30) });
    expect(won!.status).toBe("won");
    // An update of the same second as the close does not reopen it.
    await recordDispute(ctx, order, { processorDisputeId: id, status: "under_review", processorEventCreatedAt: seconds(30) });
    expect(await disputeRow(ctx, created!.id)).toMatchObject({ status: "won", processor_updated_at: seconds(30) });
    expect(await ctx.deps.db.selectFrom("disputes").select("id").where("processor_dispute_id", "=", id).execute()).toHaveLength(1);
  });

  it("applies an event of the same second to an open dispute (the processor's clock counts seconds)", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken);
    const created = await recordDispute(ctx, order, { processorDisputeId: "dp_same_second", processorEventCreatedAt: seconds(40) });
    const moved = await recordDispute(ctx, order, {
      processorDisputeId: "dp_same_second",
      status: "under_review",
      processorEventCreatedAt: seconds(40),
    });
    expect(moved).toMatchObject({ id: created!.id, status: "under_review" });
  });

  it("creates one dispute when its first events race", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken);
    const results = await Promise.all([
      recordDispute(ctx, order, { processorDisputeId: "dp_race", processorEventCreatedAt: seconds(50) }),
      recordDispute(ctx, order, { processorDisputeId: "dp_race", status: "under_review", processorEventCreatedAt: seconds(51) }),
    ]);
    expect(new Set(results.map((row) => row!.id)).size).toBe(1);
    const rows = await ctx.deps.db.selectFrom("disputes").selectAll().where("processor_dispute_id", "=", "dp_race").execute();
    expect(rows.map((row) => row.status)).toEqual(["under_review"]);
  });

  it("records nothing for a charge this service did not make, or one of another organization", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken);
    const before = await ctx.deps.db.selectFrom("disputes").select("id").execute();
    expect(await recordDispute(ctx, order, { paymentReference: "ch_unknown" })).toBeUndefined();
    const other = await createOrganization(ctx.deps);
    expect(await recordDispute(ctx, order, { organizationId: other.id })).toBeUndefined();
    expect(await ctx.deps.db.selectFrom("disputes").select("id").execute()).toEqual(before);
    // Its own organization named, it is recorded.
    expect(await recordDispute(ctx, order, { organizationId: org.id })).toMatchObject({ order_id: order.id });
    expect(await chargeOf(ctx, order)).toMatch(/^ch_sandbox_/);
  });

  it("revokes what a one-time order granted once its dispute is lost, with benefit_grant.revoked", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, {
      benefits: [{ type: "license_keys", description: "License key", properties: { prefix: "LOST" } }],
    });
    const grants = () => ctx.deps.db.selectFrom("benefit_grants").selectAll().where("order_id", "=", order.id).execute();
    const revokedEvents = () =>
      ctx.deps.db
        .selectFrom("webhook_events")
        .select("payload")
        .where("organization_id", "=", org.id)
        .where("type", "=", "benefit_grant.revoked")
        .execute();
    expect((await grants())[0]?.granted_at).not.toBeNull();
    const eventsBefore = (await revokedEvents()).length;
    await recordDispute(ctx, order, { processorDisputeId: "dp_lost", processorEventCreatedAt: seconds(60) });
    await recordDispute(ctx, order, { processorDisputeId: "dp_lost", status: "under_review", processorEventCreatedAt: seconds(61) });
    expect((await grants())[0]?.revoked_at).toBeNull();
    await recordDispute(ctx, order, { processorDisputeId: "dp_lost", status: "lost", processorEventCreatedAt: seconds(62) });
    expect((await grants())[0]).toMatchObject({ granted_at: null, revoked_at: expect.any(Date) });
    const events = await revokedEvents();
    expect(events).toHaveLength(eventsBefore + 1);
    expect(events.at(-1)!.payload.data).toMatchObject({ order_id: order.id });
    // A redelivered `closed` event revokes nothing more.
    await recordDispute(ctx, order, { processorDisputeId: "dp_lost", status: "lost", processorEventCreatedAt: seconds(63) });
    expect(await revokedEvents()).toHaveLength(eventsBefore + 1);
  });
});
