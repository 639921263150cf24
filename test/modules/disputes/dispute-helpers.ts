import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { recordProcessorDispute, type ProcessorDispute } from "../../../src/modules/disputes/disputes.steps.ts";
import type { DisputeRow } from "../../../src/modules/disputes/disputes.table.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";

/** The processor's reference of the order's succeeded payment: what a dispute event names. */
export async function chargeOf(ctx: TestContext, order: OrderRow): Promise<string> {
  const payment = await ctx.deps.db
    .selectFrom("payments")
    .select("processor_reference")
    .where("order_id", "=", order.id)
    .where("status", "=", "succeeded")
    .executeTakeFirstOrThrow();
  expect(payment.processor_reference).toMatch(/^ch_sandbox_/);
  return payment.processor_reference!;
}

let sequence = 0;

/**
 * A processor's dispute event recorded through the inbox's step, in its own transaction, as the
 * webhook inbox will: the whole order's total disputed, `needs_response`, unless told otherwise.
 */
export async function recordDispute(
  ctx: TestContext,
  order: OrderRow,
  input: Partial<ProcessorDispute> = {},
): Promise<DisputeRow | undefined> {
  sequence += 1;
  const event: ProcessorDispute = {
    paymentReference: await chargeOf(ctx, order),
    processorDisputeId: `dp_test_${sequence}`,
    status: "needs_response",
    amount: order.total_amount,
    currency: order.currency,
    reason: "fraudulent",
    evidenceDueBy: new Date(ctx.deps.now().getTime() + 7 * 86_400_000),
    processorEventCreatedAt: ctx.deps.now(),
    ...input,
  };
  return ctx.deps.db.transaction().execute((trx) => recordProcessorDispute(trx, ctx.deps.config.email, event, ctx.deps.now()));
}

export const disputeRow = (ctx: TestContext, id: string) =>
  ctx.deps.db.selectFrom("disputes").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Row counts of what an accept writes, to prove a refused one wrote nothing. */
export async function acceptWrites(ctx: TestContext) {
  const [disputes, events, revoked] = await Promise.all([
    ctx.deps.db.selectFrom("disputes").select(["id", "status", "modified_at"]).orderBy("id").execute(),
    ctx.deps.db
      .selectFrom("webhook_events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
    ctx.deps.db
      .selectFrom("benefit_grants")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("revoked_at", "is not", null)
      .executeTakeFirstOrThrow(),
  ]);
  return { disputes, events: Number(events.n), revoked: Number(revoked.n) };
}
