import type { Executor } from "../db/database.ts";
import { enqueueJobs, type JobSpec } from "../jobs/queue.ts";
import { TaskName } from "../jobs/task-names.ts";

/**
 * How long a change waits before its `customer.state_changed` is computed. The hosted service debounces
 * 1–5 s: a checkout or a renewal changes a subscription and several grants in one transaction, and
 * the integrator should get one event with the end result rather than one per row.
 */
export const STATE_CHANGED_DELAY_MS = 1_500;

/** The job key of a customer's pending state event: one per customer. */
export const customerStateJobKey = (customerId: string): string => `${TaskName.customerStateChanged}:${customerId}`;

/**
 * The job of a customer's `customer.state_changed` event, to add in the transaction of the change
 * (so it exists exactly when the change commits). Lives in contracts/ so that the lower features
 * that change a state (benefits, subscriptions, customers) need not import the customer-state
 * feature above them. Changes within the delay fold into the pending job, which keeps its time
 * (`preserve_run_at`): a customer changing continuously still gets an event every delay, not never.
 * The delay is counted on the wall clock the queue runs on, not on the caller's `now`, which may be
 * an organization's test clock months ahead.
 */
export const customerStateChangedJob = (customerId: string): JobSpec => ({
  task: TaskName.customerStateChanged,
  payload: { customerId },
  options: {
    jobKey: customerStateJobKey(customerId),
    jobKeyMode: "preserve_run_at",
    runAt: new Date(Date.now() + STATE_CHANGED_DELAY_MS),
  },
});

/** Schedules a customer's `customer.state_changed` (customerStateChangedJob) in the caller's transaction. */
export const enqueueCustomerStateChanged = (db: Executor, customerId: string): Promise<void> =>
  enqueueJobs(db, [customerStateChangedJob(customerId)]);
