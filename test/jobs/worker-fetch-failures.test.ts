import { Writable } from "node:stream";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { startWorker } from "../../src/jobs/runner.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

// graphile-worker looks up its task ids on its first job fetch and keeps that lookup's promise, a
// failed one too: every later fetch then fails with the same error for as long as the run lives (a
// database restart during the lookup did it on CI). The lookup is made to fail here, deterministically,
// by holding a lock on graphile-worker's task table against a pool whose lock timeout is short.

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

/** A pino logger at debug whose lines are kept in `lines`. */
function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  return { lines, logger: pino({ level: "debug" }, stream) };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a job worker whose fetches keep failing", () => {
  it("is started afresh after five failed fetches in a row, and then runs the jobs", async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("LOCK TABLE graphile_worker._private_tasks IN ACCESS EXCLUSIVE MODE");
    const pool = new pg.Pool({ connectionString: database.url, max: 4, options: "-c lock_timeout=100" });
    const { lines, logger } = capturingLogger();
    const ran: number[] = [];
    const worker = await startWorker({
      pool,
      tasks: {
        "test.record": async (payload) => {
          ran.push((payload as { n: number }).n);
        },
      },
      concurrency: 1,
      logger,
    });
    try {
      await until(() => lines.some((line) => line.includes("Failed to acquire job")), 10_000, "a failed fetch");
      // The lock is gone, but the failed lookup is cached: only a new run fetches jobs again.
      await holder.query("ROLLBACK");
      await enqueueJob(database.db, "test.record", { n: 1 });
      await until(() => ran.length > 0, 20_000, "the job run by a new run of the worker");
      expect(ran).toEqual([1]);
      const restart = lines.find((line) => line.includes("starting it again"));
      expect(restart).toContain("5 job fetches failed in a row");
      expect(restart).toContain("lock timeout");
    } finally {
      await holder.end().catch(() => undefined);
      await worker.stop();
      await pool.end();
    }
  }, 30_000);
});
