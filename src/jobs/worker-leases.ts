import { randomInt } from "node:crypto";
import type pg from "pg";

/** Advisory-lock namespace of worker leases (any constant no other lock of ours uses). */
const LEASE_CLASS = 0x6c656173;

/**
 * How long a lease whose lock is gone is still presumed alive, counted from its last renewal or
 * the database's start, whichever is later. A database restart drops every lock at once; each live
 * process re-takes its own well within this, while a dead one never does.
 */
export const LEASE_GRACE_MS = 10_000;
/** How often a process renews its lease, re-taking its lock if its connection was lost. */
export const LEASE_RENEW_INTERVAL_MS = 2_000;

export interface WorkerLease {
  /** Ties a worker (or worker pool) id of this process to the lease; jobs are locked under these ids. */
  record(workerId: string): Promise<void>;
  /** Drops ids whose workers have finished (their jobs already unlocked). */
  forget(workerIds: readonly string[]): Promise<void>;
  release(): Promise<void>;
}

export interface LeaseEvents {
  /** A renewal failed (the database is unreachable): tried again at the next interval. */
  onRenewError(error: unknown): void;
  /** Rows of this live process had been given up by a recovery pass (it was cut off past the grace period). */
  onTakenOver(workerIds: string[]): void;
}

/**
 * This process's lease: a session advisory lock (dropped by PostgreSQL when the process dies,
 * kill -9 included) plus a renewal time in `worker_leases`, refreshed every two seconds. When the
 * lock's connection dies (a database restart), the next renewal takes the lock again under the
 * same key and re-records every worker id.
 */
export async function takeWorkerLease(pool: pg.Pool, events?: Partial<LeaseEvents>): Promise<WorkerLease> {
  const key = randomInt(1, 2 ** 31 - 1);
  const workerIds = new Set<string>();
  let holder: pg.PoolClient | null = null;
  let stopWatching = () => undefined as void;
  let released = false;

  const lock = async (): Promise<void> => {
    if (holder) return;
    const client = await pool.connect();
    let locked = false;
    try {
      locked = (await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS locked", [LEASE_CLASS, key])).rows[0]!
        .locked;
    } finally {
      // Not locked: the session that held it is still being torn down; the next renewal tries again.
      if (!locked) client.release(true);
    }
    if (!locked) return;
    const onLost = () => {
      client.removeListener("error", onLost);
      client.removeListener("end", onLost);
      if (holder !== client) return;
      holder = null;
      client.release(true);
    };
    client.on("error", onLost);
    client.on("end", onLost);
    holder = client;
    stopWatching = () => {
      client.removeListener("error", onLost);
      client.removeListener("end", onLost);
    };
  };

  const upsert = async (ids: readonly string[]): Promise<string[]> => {
    const { rows } = await pool.query<{ worker_id: string; inserted: boolean }>(
      `INSERT INTO worker_leases (worker_id, lease_key, renewed_at) SELECT unnest($1::text[]), $2, now()
       ON CONFLICT (worker_id) DO UPDATE SET lease_key = excluded.lease_key, renewed_at = now()
       RETURNING worker_id, (xmax = 0) AS inserted`,
      [ids, key],
    );
    return rows.filter((row) => row.inserted).map((row) => row.worker_id);
  };

  const renew = async () => {
    await lock();
    if (workerIds.size === 0) return;
    const taken = await upsert([...workerIds]);
    if (taken.length > 0) events?.onTakenOver?.(taken);
  };

  await lock();
  if (!holder) throw new Error("could not take a worker lease");
  const timer = setInterval(() => {
    if (!released) renew().catch((error: unknown) => events?.onRenewError?.(error));
  }, LEASE_RENEW_INTERVAL_MS);
  timer.unref();

  return {
    async record(workerId) {
      workerIds.add(workerId);
      await upsert([workerId]);
    },
    async forget(ids) {
      for (const id of ids) workerIds.delete(id);
      await pool.query("DELETE FROM worker_leases WHERE worker_id = ANY($1::text[])", [ids]);
    },
    async release() {
      released = true;
      clearInterval(timer);
      await pool.query("DELETE FROM worker_leases WHERE lease_key = $1", [key]);
      const client = holder;
      holder = null;
      stopWatching();
      if (client) {
        await client.query("SELECT pg_advisory_unlock($1, $2)", [LEASE_CLASS, key]).catch(() => undefined);
        client.release();
      }
    },
  };
}

/**
 * Unlocks the jobs of workers whose process is gone: no lock held for its lease, and no renewal
 * within the grace period (the database's own start counting as one). graphile-worker's
 * `force_unlock_workers` does the unlocking, so the jobs run again now rather than after its
 * four-hour stale-lock timeout. Tasks are idempotent, so a job that had in fact finished its work
 * before the crash repeats harmlessly. Returns how many workers were released.
 */
export async function recoverAbandonedJobs(pool: pg.Pool, graceMs = LEASE_GRACE_MS): Promise<number> {
  const result = await pool.query<{ released: string }>(
    `WITH dead AS (
       DELETE FROM worker_leases l
       WHERE greatest(l.renewed_at, pg_postmaster_start_time()) < now() - make_interval(secs => $2::float8 / 1000)
         AND NOT EXISTS (
           SELECT 1 FROM pg_locks p
           WHERE p.locktype = 'advisory' AND p.granted AND p.objsubid = 2
             AND p.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND p.classid = $1::integer::oid AND p.objid = l.lease_key::oid
         )
       RETURNING worker_id
     ), ids AS (SELECT coalesce(array_agg(worker_id), '{}') AS workers FROM dead)
     SELECT graphile_worker.force_unlock_workers(workers), cardinality(workers) AS released FROM ids`,
    [LEASE_CLASS, graceMs],
  );
  return Number(result.rows[0]?.released ?? 0);
}
