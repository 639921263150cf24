import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import type pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../src/runtime.ts";
import { testConfig } from "../helpers/context.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

// The in-process worker's own pool (docs/decisions.md, "The in-process worker's own pool"): a
// renewal sweep holding every connection of one pool never makes the other wait, in either direction.

const POOL_SIZE = 2;

let database: TestDatabase;
let runtime: Runtime;
let dataDir: string;

/** Every connection of a pool, checked out until `release` is called. */
async function holdAll(pool: pg.Pool): Promise<{ release(): void }> {
  const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
  return { release: () => clients.forEach((client) => client.release()) };
}

/** Resolves with the statement's answer, or rejects after two seconds (a pool queueing the statement). */
async function answersPromptly(db: Runtime["deps"]["db"]): Promise<number> {
  const statement = sql<{ one: number }>`SELECT 1 AS one`.execute(db).then(({ rows }) => rows[0]!.one);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error("the statement waited for a connection")), 2_000).unref(),
  );
  return Promise.race([statement, timeout]);
}

describe("the in-process worker's pool", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-worker-pool-"));
    const config = testConfig({
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      DATA_DIR: dataDir,
      SECRET_KEY: "worker-pool-test-secret-".padEnd(48, "x"),
    });
    runtime = await openRuntime(config, pino({ level: "silent" }));
  });

  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("is a second pool, opened once, on the same clock and configuration", () => {
    const jobs = runtime.workerPool();
    expect(jobs.pool).not.toBe(runtime.pool);
    expect(runtime.workerPool().pool).toBe(jobs.pool);
    expect(jobs.deps.db).not.toBe(runtime.deps.db);
    expect(jobs.deps.now).toBe(runtime.deps.now);
    expect(jobs.deps.config).toBe(runtime.deps.config);
  });

  it("answers the worker while requests hold every connection of theirs, and requests while the worker holds all of its", async () => {
    const jobs = runtime.workerPool();
    const requestsHeld = await holdAll(runtime.pool);
    try {
      expect(runtime.pool.waitingCount).toBe(0);
      await expect(answersPromptly(jobs.deps.db)).resolves.toBe(1);
    } finally {
      requestsHeld.release();
    }
    const jobsHeld = await holdAll(jobs.pool);
    try {
      await expect(answersPromptly(runtime.deps.db)).resolves.toBe(1);
    } finally {
      jobsHeld.release();
    }
  });

  it("closes with the runtime", async () => {
    const jobs = runtime.workerPool();
    await runtime.close();
    expect(jobs.pool.ended).toBe(true);
    expect(runtime.pool.ended).toBe(true);
    // Closed once: afterAll's close must find nothing left to end.
    runtime = { ...runtime, close: async () => undefined };
  });
});
