import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { connect, type Connection } from "../../src/db/connection.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { startWorker } from "../../src/jobs/runner.ts";
import { LEASE_GRACE_MS, LEASE_RENEW_INTERVAL_MS, recoverAbandonedJobs, takeWorkerLease } from "../../src/jobs/worker-leases.ts";
import { perProcessStart } from "../helpers/process.ts";
import { startThrowawayCluster, type ThrowawayCluster } from "../helpers/throwaway-cluster.ts";

/** A database restart inside one process: the lease and the worker survive it (see worker-leases.ts). */
let cluster: ThrowawayCluster;
let connection: Connection;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  connection = connect(cluster.url, 5, 1_000);
  await migrateToLatest(connection.db, connection.pool);
}, perProcessStart(1));
afterAll(async () => {
  await connection?.close();
  await cluster?.remove();
});

const restartDatabase = async () => {
  await cluster.stop();
  await cluster.start();
};

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const leaseLocks = async () =>
  Number(
    (
      await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = ${0x6c656173}::integer::oid`.execute(connection.db)
    ).rows[0]!.n,
  );

describe("a worker lease across database restarts", () => {
  it(
    "takes its lock again and keeps its rows; recovery never releases the live process's jobs",
    async () => {
      const lease = await takeWorkerLease(connection.pool);
      await lease.record("pool-live");
      await enqueueJob(connection.db, "test.noop", {}, { jobKey: "held" });
      await sql`UPDATE graphile_worker._private_jobs SET locked_by = 'pool-live', locked_at = now() WHERE key = 'held'`.execute(
        connection.db,
      );

      for (let restart = 0; restart < 2; restart++) {
        await restartDatabase();
        // Right after the restart the lock is gone, yet the lease is inside its grace period.
        await until(async () => (await recoverAbandonedJobs(connection.pool)) === 0, 10_000);
        await until(async () => (await leaseLocks()) === 1, LEASE_RENEW_INTERVAL_MS * 5);
      }
      // Past the grace period the lock (re-taken) keeps it alive: nothing is released.
      await new Promise((resolve) => setTimeout(resolve, LEASE_GRACE_MS + 500));
      expect(await recoverAbandonedJobs(connection.pool)).toBe(0);
      const rows = await sql<{ worker_id: string }>`SELECT worker_id FROM worker_leases`.execute(connection.db);
      expect(rows.rows.map((row) => row.worker_id)).toEqual(["pool-live"]);
      const job = await sql<{ locked_by: string | null }>`SELECT locked_by FROM graphile_worker._private_jobs WHERE key = 'held'`.execute(
        connection.db,
      );
      expect(job.rows[0]!.locked_by).toBe("pool-live");
      await lease.release();
      await sql`DELETE FROM graphile_worker._private_jobs WHERE key = 'held'`.execute(connection.db);
    },
    perProcessStart(1),
  );

  it(
    "starts graphile-worker again when it stopped over a job it could not complete, and that job runs again to completion",
    async () => {
      const runs: string[] = [];
      let releaseFirst: () => void = () => undefined;
      const firstRunHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
      const worker = await startWorker({
        pool: connection.pool,
        concurrency: 1,
        logger: pino({ level: process.env.TEST_LOG ?? "silent" }),
        tasks: {
          "test.mark": async (payload) => {
            const { id } = payload as { id: string };
            runs.push(id);
            // The first run finishes while the database is down: its completion cannot be recorded.
            if (runs.length === 1) await firstRunHeld;
            await sql`INSERT INTO worker_leases (worker_id, lease_key) VALUES (${`done-${id}-${runs.length}`}, 0)`
              .execute(connection.db)
              .catch(() => undefined);
          },
        },
      });
      try {
        await enqueueJob(connection.db, "test.mark", { id: "a" });
        await until(async () => runs.length === 1, 20_000);
        await cluster.stop();
        releaseFirst();
        await new Promise((resolve) => setTimeout(resolve, 500));
        await cluster.start();
        // graphile-worker stopped its pool; the process starts it again, unlocks the job and runs it.
        await until(
          async () =>
            Number(
              (await sql<{ n: string }>`SELECT count(*) AS n FROM graphile_worker._private_jobs`.execute(connection.db)).rows[0]!.n,
            ) === 0,
          30_000,
        );
        expect(runs).toEqual(["a", "a"]);
        // And the worker goes on taking jobs.
        await enqueueJob(connection.db, "test.mark", { id: "b" });
        await until(async () => runs.length === 3, 20_000);
        expect(runs).toEqual(["a", "a", "b"]);
      } finally {
        await worker.stop();
      }
    },
    perProcessStart(1),
  );
});
