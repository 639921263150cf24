import { sql } from "kysely";
import type { MeterCreditPayload } from "../../../src/jobs/meter-credits.ts";
import { aggregateMeterEvents } from "../../../src/modules/meters/meters.tasks.ts";
import type { TestContext } from "../../helpers/context.ts";

/** The pending back-fill jobs' payloads, then each run as the worker would (the task's handler). */
export async function runBackfills(ctx: TestContext): Promise<number> {
  const { rows } = await sql<{ id: string; payload: { meter_id: string; generation: number } }>`
    SELECT j.id, j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
    WHERE t.identifier = 'meters.backfill'`.execute(ctx.deps.db);
  for (const row of rows) {
    await ctx.services.meters.backfill(row.payload);
    await sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${row.id}`.execute(ctx.deps.db);
  }
  return rows.length;
}

/** One run of the `meters:aggregate` job's work (the events ingested since the last run aggregated, then compacted), as the worker does it. */
export const aggregateMeters = (ctx: TestContext) => aggregateMeterEvents(ctx.deps.db, ctx.services.meters);

/** Runs the pending credit jobs of `meter_credit` grants as the worker would (the task's handler); their payloads. */
export async function runMeterCredits(ctx: TestContext): Promise<MeterCreditPayload[]> {
  const { rows } = await sql<{ id: string; payload: MeterCreditPayload }>`
    SELECT j.id, j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
    WHERE t.identifier = 'customer_meters.credit' ORDER BY j.id`.execute(ctx.deps.db);
  for (const row of rows) {
    await ctx.services.customerMeters.applyCredit(row.payload);
    await sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${row.id}`.execute(ctx.deps.db);
  }
  return rows.map((row) => row.payload);
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
