import { randomInt } from "node:crypto";
import type pg from "pg";

/** Advisory-lock namespace of worker leases (any constant no other lock of ours uses). */
const LEASE_CLASS = 0x6c656173;

export interface WorkerLease {
  /** Ties a worker (or worker pool) id of this process to the lease; jobs are locked under these ids. */
  record(workerId: string): Promise<void>;
  release(): Promise<void>;
}

/**
 * This process's lease: a session advisory lock on a connection held for the process's life.
 * Postgres drops the lock when the process dies (kill -9 included), which is what marks its
 * workers as gone.
 */
export async function takeWorkerLease(pool: pg.Pool): Promise<WorkerLease> {
  const client = await pool.connect();
  const key = randomInt(1, 2 ** 31 - 1);
  await client.query("SELECT pg_advisory_lock($1, $2)", [LEASE_CLASS, key]);
  return {
    async record(workerId) {
      await pool.query("INSERT INTO worker_leases (worker_id, lease_key) VALUES ($1, $2) ON CONFLICT (worker_id) DO NOTHING", [
        workerId,
        key,
      ]);
    },
    async release() {
      await pool.query("DELETE FROM worker_leases WHERE lease_key = $1", [key]);
      await client.query("SELECT pg_advisory_unlock($1, $2)", [LEASE_CLASS, key]);
      client.release();
    },
  };
}

/**
 * Unlocks the jobs of workers whose process no longer holds its lease, so they run again now
 * rather than after graphile-worker's four-hour stale-lock timeout. Tasks are idempotent, so a
 * job that had in fact finished its work before the crash repeats harmlessly. Returns how many
 * workers were released.
 */
export async function recoverAbandonedJobs(pool: pg.Pool): Promise<number> {
  const result = await pool.query<{ released: string }>(
    `WITH dead AS (
       DELETE FROM worker_leases l
       WHERE NOT EXISTS (
         SELECT 1 FROM pg_locks p
         WHERE p.locktype = 'advisory' AND p.granted AND p.objsubid = 2
           AND p.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND p.classid = $1::integer::oid AND p.objid = l.lease_key::oid
       )
       RETURNING worker_id
     ), ids AS (SELECT coalesce(array_agg(worker_id), '{}') AS workers FROM dead)
     SELECT graphile_worker.force_unlock_workers(workers), cardinality(workers) AS released FROM ids`,
    [LEASE_CLASS],
  );
  return Number(result.rows[0]?.released ?? 0);
}
