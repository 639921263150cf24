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
 * How long after a compaction the next one runs. Short, so a read adds up a few seconds of deltas
 * at most and the work runs alongside ingest rather than piling up; the work per delta does not
 * depend on it, and a run with nothing to move is one empty delete.
 */
export const COMPACTION_INTERVAL_MS = 5_000;

/** The key that keeps one compaction pending at a time, whichever of the chain and the crontab added it. */
export const COMPACTION_JOB_KEY = "meters:compact";

/**
 * Moves the deltas ingest appended into the meters' buckets (docs/decisions.md, "Meters: deltas
 * appended, then compacted"), `COMPACTION_BATCH` at a time until none is left, so what a read adds
 * up stays one row per customer and hour plus the last few seconds' deltas. Returns how many it
 * moved.
 */
export async function compactAllMeterBucketDeltas(db: Executor): Promise<number> {
  let total = 0;
  for (let moved = COMPACTION_BATCH; moved === COMPACTION_BATCH; total += moved)
    moved = await compactMeterBucketDeltas(db, COMPACTION_BATCH);
  return total;
}

/**
 * The `meters:compact` task: compacts, then schedules the next run `COMPACTION_INTERVAL_MS` later
 * under `COMPACTION_JOB_KEY`, a chain graphile-worker's minute-grained crontab cannot express. The
 * crontab adds the same key every minute (keeping a pending run's time), so a chain broken by a
 * failure or a stopped worker starts again within a minute, and there is never more than one.
 * Paced by the machine's clock, as the webhook retries: it is upkeep, not anything billed by time.
 */
export const compactMeterBucketsTask =
  (db: Executor): Task =>
  async (_payload, helpers) => {
    await compactAllMeterBucketDeltas(db);
    await helpers.addJob(
      TaskName.meterBucketsCompact,
      {},
      {
        runAt: new Date(Date.now() + COMPACTION_INTERVAL_MS),
        jobKey: COMPACTION_JOB_KEY,
        jobKeyMode: "preserve_run_at",
        maxAttempts: 1,
      },
    );
  };
