import type { Executor } from "../db/database.ts";
import { enqueueJob } from "../jobs/queue.ts";
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
 * Schedules the `customer.state_changed` event of a customer, in the caller's transaction (so it
 * exists exactly when the change commits). Lives in jobs/ so that the lower features that change a
 * state (benefits, subscriptions, customers) need not import the customer-state feature above them.
 * Changes within the delay fold into the pending job, which keeps its time (`preserve_run_at`): a
 * customer changing continuously still gets an event every delay, not never. The delay is counted
 * on the wall clock the queue runs on, not on the caller's `now`, which may be an organization's
 * test clock months ahead.
 */
export async function enqueueCustomerStateChanged(db: Executor, customerId: string): Promise<void> {
  await enqueueJob(
    db,
    TaskName.customerStateChanged,
    { customerId },
    { jobKey: customerStateJobKey(customerId), jobKeyMode: "preserve_run_at", runAt: new Date(Date.now() + STATE_CHANGED_DELAY_MS) },
  );
}
