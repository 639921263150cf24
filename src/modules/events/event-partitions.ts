import type { Db } from "../../db/database.ts";
import {
  createEventPartition,
  findEventPartitionNames,
  lockPartitionMaintenance,
  type PartitionBounds,
} from "./event-partitions.repository.ts";

/** Months created beyond the current one, so a job that stops running leaves months of margin. */
export const PARTITION_MONTHS_AHEAD = 3;

/** The partition of the UTC month `monthsLater` months after `now`'s: `events_pYYYY_MM`. */
export function monthPartition(now: Date, monthsLater: number): PartitionBounds {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + monthsLater, 1));
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  const name = `events_p${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, "0")}`;
  return { name, start, end };
}

/**
 * Creates the partitions of `now`'s month and the `PARTITION_MONTHS_AHEAD` following ones that do
 * not exist yet, in one transaction; idempotent, and safe when several processes run it at once
 * (the second waits for the first, then finds the months there). Answers the names created.
 * Run at start-up and by the hourly `events:partitions` job.
 */
export async function ensureEventPartitions(db: Db, now: Date): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await lockPartitionMaintenance(trx);
    const existing = await findEventPartitionNames(trx);
    const missing = Array.from({ length: PARTITION_MONTHS_AHEAD + 1 }, (_, i) => monthPartition(now, i)).filter(
      (partition) => !existing.has(partition.name),
    );
    for (const partition of missing) await createEventPartition(trx, partition);
    return missing.map((partition) => partition.name);
  });
}
