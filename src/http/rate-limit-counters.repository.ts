import { sql, type Selectable } from "kysely";
import type { Db } from "../db/database.ts";
import type { RateLimitCountersTable } from "./rate-limit.table.ts";

/**
 * Counts one request against `key` in one statement: a new bucket, or one whose window has ended,
 * starts a window of `windowMs` at 1; a live one adds 1. The row lock of the upsert serializes
 * concurrent requests of every process, so none is lost.
 */
export async function incrementCounter(
  db: Db,
  key: string,
  windowMs: number,
  now: Date,
): Promise<Pick<Selectable<RateLimitCountersTable>, "count" | "window_ends_at">> {
  const windowEndsAt = new Date(now.getTime() + windowMs);
  return db
    .insertInto("rate_limit_counters")
    .values({ key, count: 1, window_ends_at: windowEndsAt })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        count: sql<number>`CASE WHEN rate_limit_counters.window_ends_at <= ${now} THEN 1 ELSE rate_limit_counters.count + 1 END`,
        window_ends_at: sql<Date>`CASE WHEN rate_limit_counters.window_ends_at <= ${now} THEN excluded.window_ends_at ELSE rate_limit_counters.window_ends_at END`,
      }),
    )
    .returning(["count", "window_ends_at"])
    .executeTakeFirstOrThrow();
}

/** Deletes the buckets whose window ended before `now` (they would start afresh anyway). */
export async function purgeEndedWindows(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom("rate_limit_counters").where("window_ends_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
