import type { MeterCreditPayload } from "../../../src/contracts/meter-credits.ts";
import { aggregateMeterEvents } from "../../../src/modules/meters/meters.tasks.ts";
import type { TestContext } from "../../helpers/context.ts";
import { queuedJobs, removeQueuedJob } from "../../helpers/jobs.ts";
import { TaskName } from "../../../src/jobs/task-names.ts";
import type { BackfillPayload } from "../../../src/modules/meters/meters.service.ts";

/** The pending back-fill jobs' payloads, then each run as the worker would (the task's handler). */
export async function runBackfills(ctx: TestContext): Promise<number> {
  const jobs = await queuedJobs<BackfillPayload>(ctx.deps.db, { task: TaskName.meterBackfill });
  for (const job of jobs) {
    await ctx.services.meters.backfill(job.payload);
    await removeQueuedJob(ctx.deps.db, job.id);
  }
  return jobs.length;
}

/** One run of the `meters:aggregate` job's work (the events ingested since the last run aggregated, then compacted), as the worker does it. */
export const aggregateMeters = (ctx: TestContext) => aggregateMeterEvents(ctx.deps.db, ctx.services.meters);

/** Runs the pending credit jobs of `meter_credit` grants as the worker would (the task's handler); their payloads. */
export async function runMeterCredits(ctx: TestContext): Promise<MeterCreditPayload[]> {
  const jobs = await queuedJobs<MeterCreditPayload>(ctx.deps.db, { task: TaskName.meterCredit });
  for (const job of jobs) {
    await ctx.services.customerMeters.applyCredit(job.payload);
    await removeQueuedJob(ctx.deps.db, job.id);
  }
  return jobs.map((job) => job.payload);
}

export interface IngestEvent {
  name: string;
  external_customer_id?: string;
  customer_id?: string;
  timestamp?: string;
  external_id?: string;
  metadata?: Record<string, string | number | boolean>;
}

export async function ingest(ctx: TestContext, token: string, events: IngestEvent[]) {
  const response = await ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });
  if (response.statusCode !== 200) throw new Error(`ingest answered ${response.statusCode}: ${response.body}`);
  return response.json<{ inserted: number; duplicates: number }>();
}
