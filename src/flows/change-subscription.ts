import type { Executor } from "../db/database.ts";
import type { OrganizationScope } from "../http/auth.ts";
import { ResourceNotFound } from "../http/errors.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import type { SubscriptionUpdate } from "../modules/subscriptions/subscription-inputs.schemas.ts";
import { AlreadyCanceledSubscription, NotPausedSubscription } from "../modules/subscriptions/subscriptions.errors.ts";
import type { Subscription } from "../modules/subscriptions/subscriptions.schemas.ts";
import {
  findSubscriptionForUpdate,
  isBillable,
  publishSubscriptionEvents,
  readSubscription,
  requestChange,
  updateSubscription,
  type Actor,
  type Change,
  type SubscriptionEvent,
  type SubscriptionVisibility,
} from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { invoiceChanges } from "./bill-subscription.ts";
import { chargeBeforeCommit, collectSubscriptionPayment } from "./collect-subscription-payment.ts";
import type { SubscriptionFlowContext } from "./subscription-flow-context.ts";
import { cycleSubscription, endSubscriptionNow, resumeAndRenew } from "./renew-subscriptions.ts";
import { writeSubscriptionNotice } from "./subscription-notice-email.ts";
import { writeCancellationNotice } from "./seller-notices.ts";

// The merchant's and the customer's changes to a subscription (`PATCH`, `DELETE`), each under the
// row's lock, in one transaction with its events; what bills at once is charged before the commit.

/** Charges a change's order before the change commits; a failure (402) rolls the change back. */
async function chargeNow(trx: Executor, ctx: SubscriptionFlowContext, subscriptionId: string, order: OrderRow | null): Promise<void> {
  if (!order) return;
  const row = await findSubscriptionForUpdate(trx, subscriptionId, { allowed: null });
  if (row) await chargeBeforeCommit(trx, ctx, { row, order });
}

/** What follows an accepted change in its transaction (`Change.then`); returns the order a renewal leaves to charge. */
async function follow(trx: Executor, ctx: SubscriptionFlowContext, updated: SubscriptionRow, then: Change["then"], now: Date) {
  switch (then) {
    case "renew":
      // Ending a trial renews right away, in this transaction; the charge follows it.
      return cycleSubscription(trx, ctx, updated, now);
    case "restart":
      await chargeNow(trx, ctx, updated.id, await cycleSubscription(trx, ctx, updated, now, { restart: true }));
      return null;
    case "invoice":
      await chargeNow(trx, ctx, updated.id, await invoiceChanges(trx, ctx, updated, now));
      return null;
    default:
      return null;
  }
}

/** Applies one update body to a locked row; returns the order to charge when the change renews at once. */
async function applyChange(
  trx: Executor,
  ctx: SubscriptionFlowContext,
  row: SubscriptionRow,
  input: SubscriptionUpdate,
  actor: Actor,
): Promise<OrderRow | null> {
  const now = ctx.deps.now();
  if ("revoke" in input) {
    if (row.ended_at !== null || !(isBillable(row) || row.status === "paused")) throw new AlreadyCanceledSubscription();
    return endSubscriptionNow(trx, ctx, row, now, {
      reason: input.customer_cancellation_reason,
      comment: input.customer_cancellation_comment,
    });
  }
  if ("resume" in input) {
    if (row.status !== "paused") throw new NotPausedSubscription();
    return resumeAndRenew(trx, ctx, row, now);
  }
  const change = await requestChange(trx, row, input, now, actor);
  const updated = await updateSubscription(trx, row.id, { ...change.values, modified_at: now });
  const events: SubscriptionEvent[] = ["subscription.updated"];
  if (!["trialing", "active"].includes(row.status) && updated.status === "active") events.push("subscription.active");
  await publishSubscriptionEvents(trx, updated, [...events, ...change.events], now);
  if (change.events.includes("subscription.canceled"))
    await writeSubscriptionNotice(trx, ctx.deps, updated, "subscription_cancellation", now);
  if (change.events.includes("subscription.uncanceled"))
    await writeSubscriptionNotice(trx, ctx.deps, updated, "subscription_uncanceled", now);
  await writeCancellationNotice(trx, ctx.deps, { before: row, after: updated, actor, now });
  return follow(trx, ctx, updated, change.then, now);
}

/** Applies a change to a subscription the caller may see (404 otherwise); returns which one, for the caller to read it back. */
export async function changeSubscription(
  ctx: SubscriptionFlowContext,
  id: string,
  input: SubscriptionUpdate,
  visibility: SubscriptionVisibility,
): Promise<Pick<SubscriptionRow, "id" | "organization_id">> {
  const { row, pending } = await ctx.deps.db.transaction().execute(async (trx) => {
    const locked = await findSubscriptionForUpdate(trx, id, visibility);
    if (!locked) throw new ResourceNotFound();
    // A scope narrowed to one customer is that customer acting, through the portal.
    const actor: Actor = visibility.customerId === undefined ? "merchant" : "customer";
    return { row: locked, pending: await applyChange(trx, ctx, locked, input, actor) };
  });
  if (pending) await collectSubscriptionPayment(ctx, pending.id, "subscription_cycle");
  return row;
}

/** The merchant's change, read back as the API answers it. */
async function changeAndRead(ctx: SubscriptionFlowContext, id: string, input: SubscriptionUpdate, allowed: OrganizationScope) {
  const row = await changeSubscription(ctx, id, input, { allowed });
  return ctx.deps.db.transaction().execute((trx) => readSubscription(trx, row, ctx.deps.now()));
}

/** The flow bound to the application's context: the routes' update and revoke, the portal's updateRow. */
export const subscriptionChanges = (ctx: SubscriptionFlowContext) => ({
  updateRow: (id: string, input: SubscriptionUpdate, visibility: SubscriptionVisibility) => changeSubscription(ctx, id, input, visibility),
  update: (id: string, input: SubscriptionUpdate, allowed: OrganizationScope): Promise<Subscription> =>
    changeAndRead(ctx, id, input, allowed),
  /** `DELETE /v1/subscriptions/{id}`: revoke now. */
  revoke: (id: string, allowed: OrganizationScope): Promise<Subscription> => changeAndRead(ctx, id, { revoke: true }, allowed),
});
export type SubscriptionUpdates = ReturnType<typeof subscriptionChanges>;
