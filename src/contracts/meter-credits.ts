import type { JobSpec } from "../jobs/queue.ts";
import { TaskName } from "../jobs/task-names.ts";

/** What happened to a `meter_credit` grant: granted (or granted again), renewed, revoked. */
export type MeterCreditKind = "grant" | "cycle" | "revoke";
export const MeterCreditKinds: readonly MeterCreditKind[] = ["grant", "cycle", "revoke"];

/** A `meter_credit` grant's change to apply to its customer meter. */
export interface MeterCreditPayload {
  grant_id: string;
  kind: MeterCreditKind;
  /** The instant of the grant or cycle (the organization's clock), ISO 8601. */
  at: string;
}

/**
 * The job that credits a `meter_credit` grant, to add in the transaction of the grant, its cycle or
 * its revocation, so it exists exactly when that commits. Lives in contracts/ so that benefits, below
 * meters, need not import the customer meters that compute balances from the meter's buckets. One
 * job per grant and instant: a replayed enqueue folds into the pending job, and the handler skips
 * what it already applied.
 */
export const meterCreditJob = (payload: MeterCreditPayload): JobSpec => ({
  task: TaskName.meterCredit,
  payload,
  options: { jobKey: `${TaskName.meterCredit}:${payload.grant_id}:${payload.kind}:${payload.at}` },
});
