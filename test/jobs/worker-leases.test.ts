import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { recoverAbandonedJobs, takeWorkerLease } from "../../src/jobs/worker-leases.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const lockedBy = async (key: string) =>
  (await sql<{ locked_by: string | null }>`SELECT locked_by FROM graphile_worker._private_jobs WHERE key = ${key}`.execute(database.db))
    .rows[0]?.locked_by;

async function lockedJob(key: string, workerId: string): Promise<void> {
  await enqueueJob(database.db, "test.noop", {}, { jobKey: key });
  await sql`UPDATE graphile_worker._private_jobs SET locked_by = ${workerId}, locked_at = now() WHERE key = ${key}`.execute(database.db);
}

describe("worker leases", () => {
  it("release the jobs of workers whose process is gone and leave live ones alone", async () => {
    const live = await takeWorkerLease(database.pool);
    await live.record("worker-live");
    // A crashed process leaves its lease row behind, but its advisory lock died with its connection.
    await sql`INSERT INTO worker_leases (worker_id, lease_key, renewed_at) VALUES ('pool-crashed', 12345, now() - interval '1 minute')`.execute(
      database.db,
    );
    // One whose lock is gone but which renewed a moment ago may be reconnecting: left alone for now.
    await sql`INSERT INTO worker_leases (worker_id, lease_key) VALUES ('pool-reconnecting', 23456)`.execute(database.db);
    await lockedJob("job-reconnecting", "pool-reconnecting");
    // A live lease is never released, however old its renewal.
    await sql`UPDATE worker_leases SET renewed_at = now() - interval '1 hour' WHERE worker_id = 'worker-live'`.execute(database.db);
    await lockedJob("job-live", "worker-live");
    await lockedJob("job-crashed", "pool-crashed");

    expect(await recoverAbandonedJobs(database.pool)).toBe(1);
    expect(await lockedBy("job-live")).toBe("worker-live");
    expect(await lockedBy("job-crashed")).toBeNull();
    const leases = await sql<{ worker_id: string }>`SELECT worker_id FROM worker_leases ORDER BY worker_id`.execute(database.db);
    expect(leases.rows.map((row) => row.worker_id)).toEqual(["pool-reconnecting", "worker-live"]);
    expect(await lockedBy("job-reconnecting")).toBe("pool-reconnecting");
    expect(await recoverAbandonedJobs(database.pool)).toBe(0);
    // Past the grace period without a renewal it is gone too.
    expect(await recoverAbandonedJobs(database.pool, 0)).toBe(1);
    expect(await lockedBy("job-reconnecting")).toBeNull();

    await live.release();
    const remaining = await sql<{ worker_id: string }>`SELECT worker_id FROM worker_leases`.execute(database.db);
    expect(remaining.rows).toEqual([]);
  });
});
