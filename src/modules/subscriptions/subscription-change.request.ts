import type { Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { BadRequest, RequestValidationError, fieldIssue } from "../../http/errors.ts";
import { findLiveDiscount, redeemDiscount } from "../discounts/discounts.steps.ts";
import type { SubscriptionUpdate } from "./subscription-inputs.schemas.ts";
import { isBillable, isCanceling, type Actor, type Change } from "./subscription-lifecycle.ts";
import { requestProductSwitch, requestSeatCount } from "./subscription-plan-change.request.ts";
import { periodAmount } from "./subscription-change.apply.ts";
import {
  AlreadyCanceledSubscription,
  CannotPauseSubscription,
  InactiveSubscription,
  NoScheduledPause,
  ResourceUnavailable,
} from "./subscriptions.errors.ts";
import type { SubscriptionRow, SubscriptionsTable } from "./subscriptions.table.ts";

// A requested change of a subscription (`PATCH`): the hosted service's rules and errors, change by change,
// checked on the locked row and turned into the columns it writes and what follows it.

type Base = Extract<SubscriptionUpdate, { trial_end?: unknown }>;

/** The changes that only write the subscription's own columns (revoke and resume are the flow's). */
export type ColumnChange = Exclude<SubscriptionUpdate, { revoke: true } | { resume: true }>;

function requestCancellation(
  row: SubscriptionRow,
  input: Extract<SubscriptionUpdate, { cancel_at_period_end: boolean }>,
  now: Date,
): Change {
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

async function requestDiscount(
  trx: Executor,
  row: SubscriptionRow,
  discountId: string | null,
  now: Date,
): Promise<Updateable<SubscriptionsTable>> {
  if (discountId === null) return { discount_id: null, discount_applied_at: null, amount: await periodAmount(trx, row, null) };
  const loc = ["body", "discount_id"];
  if (discountId === row.discount_id)
    throw new RequestValidationError([fieldIssue(loc, "This discount is already applied to the subscription.", discountId, "value_error")]);
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
function requestTrialEnd(row: SubscriptionRow, trialEnd: string, now: Date): Change {
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

async function requestBaseChange(trx: Executor, row: SubscriptionRow, input: Base, now: Date, actor: Actor): Promise<Change> {
  const change: Change =
    input.product_id !== undefined && input.product_id !== null && input.product_id !== row.product_id
      ? await requestProductSwitch(trx, row, { productId: input.product_id, behavior: input.proration_behavior, actor }, now)
      : { values: {}, events: [] };
  if (input.discount_id !== undefined) {
    if (!isBillable(row) || isCanceling(row)) throw new AlreadyCanceledSubscription();
    Object.assign(change.values, await requestDiscount(trx, row, input.discount_id, now));
  }
  if (input.trial_end !== undefined && input.trial_end !== null) {
    const trial = requestTrialEnd(row, input.trial_end, now);
    Object.assign(change.values, trial.values);
    change.then = trial.then ?? change.then;
  }
  if (input.metadata !== undefined) change.values.metadata = JSON.stringify(input.metadata);
  return change;
}

function requestBillingPeriodEnd(row: SubscriptionRow, end: string, now: Date): Change {
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

function requestPause(row: SubscriptionRow, input: Extract<SubscriptionUpdate, { pause_at_period_end: boolean }>): Change {
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

/** What one requested change writes on the locked row, and what follows it in its transaction. */
export async function requestChange(trx: Executor, row: SubscriptionRow, input: ColumnChange, now: Date, actor: Actor): Promise<Change> {
  if ("cancel_at_period_end" in input) return requestCancellation(row, input, now);
  if ("current_billing_period_end" in input) return requestBillingPeriodEnd(row, input.current_billing_period_end, now);
  if ("pause_at_period_end" in input) return requestPause(row, input);
  if ("pending_update" in input) {
    if (row.pending_update === null)
      throw new RequestValidationError([fieldIssue(["body", "pending_update"], "This subscription has no pending update to clear.", null)]);
    return { values: { pending_update: null }, events: [] };
  }
  if ("seats" in input) return requestSeatCount(trx, row, { seats: input.seats, behavior: input.proration_behavior }, now);
  return requestBaseChange(trx, row, input, now, actor);
}
