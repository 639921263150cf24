import type { Task } from "graphile-worker";
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
 * Moves the deltas ingest appended into the meters' buckets (every minute; docs/decisions.md,
 * "Meters: deltas appended, then compacted"), `COMPACTION_BATCH` at a time until none is left, so
 * what a read adds up stays one row per customer and hour plus the last minute's deltas. Returns
 * how many it moved.
 */
export async function compactAllMeterBucketDeltas(db: Executor): Promise<number> {
  let total = 0;
  for (let moved = COMPACTION_BATCH; moved === COMPACTION_BATCH; total += moved)
    moved = await compactMeterBucketDeltas(db, COMPACTION_BATCH);
  return total;
}
