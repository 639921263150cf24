import type { Executor } from "../db/database.ts";
import { enqueueJob } from "./queue.ts";
import { TaskName } from "./task-names.ts";

/** A `meter_credit` grant to apply: granted (`cycle` false) or renewed at `at` (`cycle` true). */
export interface MeterCreditPayload {
  grant_id: string;
  cycle: boolean;
  /** The instant of the grant or cycle (the organization's clock), ISO 8601. */
  at: string;
}

/**
 * Schedules the credit of a `meter_credit` grant, in the transaction of the grant or of its cycle,
 * so it exists exactly when that commits. Lives in jobs/ so that benefits, below meters, need not
 * import the customer meters that compute balances from the meter's buckets. One job per grant and
 * instant: a replayed enqueue folds into the pending job, and the handler skips what it already applied.
 */
export async function enqueueMeterCredit(db: Executor, payload: MeterCreditPayload): Promise<void> {
  await enqueueJob(db, TaskName.meterCredit, payload, { jobKey: `${TaskName.meterCredit}:${payload.grant_id}:${payload.at}` });
}
