import type { Task } from "graphile-worker";
import { TaskName } from "../../jobs/task-names.ts";
import type { Executor } from "../../db/database.ts";
import { compactMeterBucketDeltas } from "./meter-aggregates.repository.ts";
import type { BackfillPayload, MeterService } from "./meters.service.ts";

const isBackfillPayload = (payload: unknown): payload is BackfillPayload =>
  typeof payload === "object" &&
  payload !== null &&
  "meter_id" in payload &&
  typeof payload.meter_id === "string" &&
  "generation" in payload &&
  typeof payload.generation === "number";

/** Back-fills a meter created (or redefined) after events of its organization existed. */
export const backfillMeterTask =
  (meters: MeterService): Task =>
  async (payload) => {
    if (isBackfillPayload(payload)) await meters.backfill(payload);
  };

/** Deltas moved per statement: each statement's delete and upsert stay a few megabytes. */
const COMPACTION_BATCH = 10_000;

/**
 * How long after an aggregation the next one runs. Short, so a read adds up a few seconds of raw
 * events and deltas at most, and the work runs alongside ingest rather than piling up; the work per
 * event does not depend on it, and a run with nothing to do is one index probe per meter.
 */
export const AGGREGATION_INTERVAL_MS = 2_000;

/** The key that keeps one aggregation pending at a time, whichever of the chain and the crontab added it. */
export const AGGREGATION_JOB_KEY = "meters:aggregate";

/**
 * Moves the deltas the aggregations appended into the meters' buckets (docs/decisions.md, "Meters:
 * deltas appended, then compacted"), `COMPACTION_BATCH` at a time until none is left, so what a read
 * adds up stays one row per customer and hour plus the last few seconds' deltas. Returns how many
 * it moved.
 */
export async function compactAllMeterBucketDeltas(db: Executor): Promise<number> {
  let total = 0;
  for (let moved = COMPACTION_BATCH; moved === COMPACTION_BATCH; total += moved)
    moved = await compactMeterBucketDeltas(db, COMPACTION_BATCH);
  return total;
}

/**
 * One run of the meters' upkeep: every organization's events ingested since the last run added to
 * its meters' buckets (docs/decisions.md, "Meters: aggregated after ingest"), then the deltas that
 * wrote compacted.
 */
export async function aggregateMeterEvents(db: Executor, meters: MeterService): Promise<void> {
  await meters.aggregateAllIngested();
  await compactAllMeterBucketDeltas(db);
}

/**
 * The `meters:aggregate` task: a run, then the next one `AGGREGATION_INTERVAL_MS` later under
 * `AGGREGATION_JOB_KEY`, a chain graphile-worker's minute-grained crontab cannot express. The
 * crontab adds the same key every minute (keeping a pending run's time), so a chain broken by a
 * failure or a stopped worker starts again within a minute, and there is never more than one.
 * Paced by the machine's clock, as the webhook retries: it is upkeep, not anything billed by time.
 */
export const aggregateMeterEventsTask =
  (db: Executor, meters: MeterService): Task =>
  async (_payload, helpers) => {
    await aggregateMeterEvents(db, meters);
    await helpers.addJob(
      TaskName.meterEventsAggregate,
      {},
      {
        runAt: new Date(Date.now() + AGGREGATION_INTERVAL_MS),
        jobKey: AGGREGATION_JOB_KEY,
        jobKeyMode: "preserve_run_at",
        maxAttempts: 1,
      },
    );
  };
