import type { Updateable } from "kysely";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { BadRequest, RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { findLiveDiscount, redeemDiscount } from "../discounts/discount-redemptions.repository.ts";
import type { OrderRow } from "../orders/orders.table.ts";
import type { SubscriptionUpdate } from "./subscription-inputs.schemas.ts";
import type { SubscriptionRenewals } from "./subscription-renewals.ts";
import { isBillable, isCanceling, type Actor, type Change, type SubscriptionEvent } from "./subscription-lifecycle.ts";
import { changeProduct, changeSeats } from "./subscription-plan-updates.ts";
import { periodAmount } from "./subscription-plan-changes.ts";
import {
  AlreadyCanceledSubscription,
  CannotPauseSubscription,
  InactiveSubscription,
  NoScheduledPause,
  NotPausedSubscription,
  ResourceUnavailable,
} from "./subscriptions.errors.ts";
import * as repo from "./subscriptions.repository.ts";
import { publishSubscriptionEvents, readSubscription } from "./subscriptions.service.ts";
import type { Subscription } from "./subscriptions.schemas.ts";
import type { SubscriptionRow, SubscriptionsTable } from "./subscriptions.table.ts";

type Base = Extract<SubscriptionUpdate, { trial_end?: unknown }>;

/**
 * The merchant's changes to a subscription (`PATCH`, `DELETE`), each under the row's lock, in one
 * transaction with its events: the anchor's rules and errors, change by change.
 */
export function createSubscriptionUpdates(deps: Deps, renewals: SubscriptionRenewals) {
  const { db } = deps;

  async function cancel(
    row: SubscriptionRow,
    input: Extract<SubscriptionUpdate, { cancel_at_period_end: boolean }>,
    now: Date,
  ): Promise<Change> {
    if (input.cancel_at_period_end) {
      if (!isBillable(row) || isCanceling(row)) throw new AlreadyCanceledSubscription();
      return {
        values: {
          cancel_at_period_end: true,
          canceled_at: now,
          ends_at: row.current_period_end,
          pause_at_period_end: false,
          resumes_at: null,
          ...(input.customer_cancellation_reason ? { customer_cancellation_reason: input.customer_cancellation_reason } : {}),
          ...(input.customer_cancellation_comment ? { customer_cancellation_comment: input.customer_cancellation_comment } : {}),
        },
        events: ["subscription.canceled"],
      };
    }
    if (row.ended_at !== null) throw new ResourceUnavailable();
    if (!(isCanceling(row) && isBillable(row))) throw new BadRequest("Bad request");
    return {
      values: {
        cancel_at_period_end: false,
        canceled_at: null,
        ends_at: null,
        customer_cancellation_reason: null,
        customer_cancellation_comment: null,
      },
      events: ["subscription.uncanceled"],
    };
  }

  async function changeDiscount(
    trx: Executor,
    row: SubscriptionRow,
    discountId: string | null,
    now: Date,
  ): Promise<Updateable<SubscriptionsTable>> {
    if (discountId === null) return { discount_id: null, discount_applied_at: null, amount: await periodAmount(trx, row, null) };
    const loc = ["body", "discount_id"];
    if (discountId === row.discount_id)
      throw new RequestValidationError([
        fieldIssue(loc, "This discount is already applied to the subscription.", discountId, "value_error"),
      ]);
    const discount = await findLiveDiscount(trx, row.organization_id, { id: discountId });
    const applicable =
      discount !== undefined &&
      (discount.product_ids.length === 0 || discount.product_ids.includes(row.product_id)) &&
      (discount.starts_at === null || discount.starts_at <= now) &&
      (discount.ends_at === null || discount.ends_at > now) &&
      (discount.type === "percentage" || (discount.amounts ?? {})[row.currency] !== undefined);
    if (!applicable || !(await redeemDiscount(trx, discount.id)))
      throw new RequestValidationError([
        fieldIssue(loc, "Discount does not exist, is not applicable to this product or is not redeemable.", discountId, "value_error"),
      ]);
    // Stored now, first billed at the next renewal: its duration counts from then.
    return { discount_id: discount.id, discount_applied_at: null, amount: await periodAmount(trx, row, discount.id) };
  }

  /** `trialEnd` is a date-time, or `now` to end the trial at once. */
  function changeTrial(row: SubscriptionRow, trialEnd: string, now: Date): Change {
    if (row.status !== "trialing" && row.status !== "active") throw new InactiveSubscription(row.id);
    const loc = ["body", "trial_end"];
    if (row.status === "trialing") {
      if (trialEnd === "now") return { values: { trial_end: now, current_period_end: now }, events: [], then: "renew" };
      const end = new Date(trialEnd);
      if (end <= now) throw new RequestValidationError([fieldIssue(loc, "Trial end must be in the future.", trialEnd)]);
      return { values: { trial_end: end, current_period_end: end }, events: [] };
    }
    if (trialEnd === "now") throw new RequestValidationError([fieldIssue(loc, "The subscription is not currently trialing.", trialEnd)]);
    const end = new Date(trialEnd);
    if (end <= row.current_period_end)
      throw new RequestValidationError([fieldIssue(loc, "Trial end must be after the current period end.", trialEnd)]);
    return { values: { status: "trialing", trial_end: end, current_period_end: end }, events: [] };
  }

  async function base(trx: Executor, row: SubscriptionRow, input: Base, now: Date, actor: Actor): Promise<Change> {
    const change: Change =
      input.product_id !== undefined && input.product_id !== null && input.product_id !== row.product_id
        ? await changeProduct(trx, row, { productId: input.product_id, behavior: input.proration_behavior, actor }, now)
        : { values: {}, events: [] };
    if (input.discount_id !== undefined) {
      if (!isBillable(row) || isCanceling(row)) throw new AlreadyCanceledSubscription();
      Object.assign(change.values, await changeDiscount(trx, row, input.discount_id, now));
    }
    if (input.trial_end !== undefined && input.trial_end !== null) {
      const trial = changeTrial(row, input.trial_end, now);
      Object.assign(change.values, trial.values);
      change.then = trial.then ?? change.then;
    }
    if (input.metadata !== undefined) change.values.metadata = JSON.stringify(input.metadata);
    return change;
  }

  function billingPeriod(row: SubscriptionRow, end: string, now: Date): Change {
    if (row.status === "canceled" || row.status === "unpaid" || isCanceling(row)) throw new AlreadyCanceledSubscription();
    if (row.status !== "trialing" && row.status !== "active") throw new InactiveSubscription(row.id);
    const date = new Date(end);
    if (date <= now)
      throw new RequestValidationError([
        fieldIssue(["body", "current_billing_period_end"], "The new period end must be in the future.", end),
      ]);
    return {
      values: { current_period_end: date, anchor_day: date.getUTCDate(), ...(row.status === "trialing" ? { trial_end: date } : {}) },
      events: [],
    };
  }

  function pause(row: SubscriptionRow, input: Extract<SubscriptionUpdate, { pause_at_period_end: boolean }>): Change {
    if (!input.pause_at_period_end) {
      if (!row.pause_at_period_end) throw new NoScheduledPause();
      return { values: { pause_at_period_end: false, resumes_at: null }, events: [] };
    }
    if (row.status !== "active" || isCanceling(row) || row.pause_at_period_end) throw new CannotPauseSubscription();
    if (input.resumes_at && new Date(input.resumes_at) <= row.current_period_end)
      throw new RequestValidationError([
        fieldIssue(["body", "resumes_at"], "resumes_at must be after the current period end.", input.resumes_at),
      ]);
    return { values: { pause_at_period_end: true, resumes_at: input.resumes_at ? new Date(input.resumes_at) : null }, events: [] };
  }

  /** Applies one update body to a locked row; returns the order to charge when the change renews at once. */
  async function apply(trx: Executor, row: SubscriptionRow, input: SubscriptionUpdate, now: Date, actor: Actor): Promise<OrderRow | null> {
    if ("revoke" in input) {
      if (row.ended_at !== null || !(isBillable(row) || row.status === "paused")) throw new AlreadyCanceledSubscription();
      return renewals.endNow(trx, row, now, { reason: input.customer_cancellation_reason, comment: input.customer_cancellation_comment });
    }
    let change: Change;
    if ("cancel_at_period_end" in input) change = await cancel(row, input, now);
    else if ("current_billing_period_end" in input) change = billingPeriod(row, input.current_billing_period_end, now);
    else if ("pause_at_period_end" in input) change = pause(row, input);
    else if ("resume" in input) {
      if (row.status !== "paused") throw new NotPausedSubscription();
      return renewals.resume(trx, row, now);
    } else if ("pending_update" in input) {
      if (row.pending_update === null)
        throw new RequestValidationError([
          fieldIssue(["body", "pending_update"], "This subscription has no pending update to clear.", null),
        ]);
      change = { values: { pending_update: null }, events: [] };
    } else if ("seats" in input) change = await changeSeats(trx, row, { seats: input.seats, behavior: input.proration_behavior }, now);
    else change = await base(trx, row, input, now, actor);

    const updated = await repo.updateSubscription(trx, row.id, { ...change.values, modified_at: now });
    const events: SubscriptionEvent[] = ["subscription.updated"];
    if (!["trialing", "active"].includes(row.status) && updated.status === "active") events.push("subscription.active");
    await publishSubscriptionEvents(trx, updated, [...events, ...change.events], now);
    switch (change.then) {
      case "renew":
        // Ending a trial renews right away, in this transaction; the charge follows it.
        return renewals.cycle(trx, updated, now);
      case "restart":
        await chargeNow(trx, updated.id, await renewals.cycle(trx, updated, now, { restart: true }));
        return null;
      case "invoice":
        await chargeNow(trx, updated.id, await renewals.invoiceChanges(trx, updated, now));
        return null;
      default:
        return null;
    }
  }

  /** Charges a change's order before the change commits; a failure (402) rolls the change back. */
  async function chargeNow(trx: Executor, subscriptionId: string, order: OrderRow | null): Promise<void> {
    if (!order) return;
    const row = await repo.findSubscriptionForUpdate(trx, subscriptionId, { allowed: null });
    if (row) await renewals.chargeBeforeCommit(trx, row, order);
  }

  /** Applies a change to a subscription the caller may see (404 otherwise); returns which one, for the caller to read it back. */
  async function updateRow(
    id: string,
    input: SubscriptionUpdate,
    visibility: repo.SubscriptionVisibility,
  ): Promise<Pick<SubscriptionRow, "id" | "organization_id">> {
    const { row, pending } = await db.transaction().execute(async (trx) => {
      const locked = await repo.findSubscriptionForUpdate(trx, id, visibility);
      if (!locked) throw new ResourceNotFound();
      // A scope narrowed to one customer is that customer acting, through the portal.
      const actor: Actor = visibility.customerId === undefined ? "merchant" : "customer";
      return { row: locked, pending: await apply(trx, locked, input, deps.now(), actor) };
    });
    if (pending) await renewals.collect(pending.id, "subscription_cycle");
    return row;
  }

  return {
    updateRow,

    async update(id: string, input: SubscriptionUpdate, allowed: OrganizationScope): Promise<Subscription> {
      const row = await updateRow(id, input, { allowed });
      return db.transaction().execute((trx) => readSubscription(trx, row, deps.now()));
    },

    /** `DELETE /v1/subscriptions/{id}`: revoke now. */
    async revoke(id: string, allowed: OrganizationScope): Promise<Subscription> {
      const row = await updateRow(id, { revoke: true }, { allowed });
      return db.transaction().execute((trx) => readSubscription(trx, row, deps.now()));
    },
  };
}
export type SubscriptionUpdates = ReturnType<typeof createSubscriptionUpdates>;
