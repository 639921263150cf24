import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/context.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("database connections", () => {
  it("run with JIT compilation off on every pooled connection", async () => {
    // Concurrent statements make the pool open several connections.
    const settings = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const { rows } = await sql<{
          jit: string;
          pid: number;
        }>`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(ctx.deps.db);
        return rows[0]!;
      }),
    );
    expect(new Set(settings.map((row) => row.pid)).size).toBeGreaterThan(1);
    expect(settings.map((row) => row.jit)).toEqual(Array(5).fill("off"));
  });
});

describe("plans cached by a pooled connection", () => {
  it("follow a table's growth: a foreign-key check into a table grown since the session's first checks uses its index", async () => {
    const parentScans = () =>
      sql<{ seq_scan: number; idx_scan: number }>`SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'grown_parent'`;
    // One connection throughout: the foreign-key check's plan is cached per session.
    const [before, after] = await ctx.deps.db.transaction().execute(async (trx) => {
      await sql`CREATE TEMPORARY TABLE grown_parent (id integer PRIMARY KEY) ON COMMIT DROP`.execute(trx);
      await sql`CREATE TEMPORARY TABLE grown_child (parent_id integer REFERENCES grown_parent) ON COMMIT DROP`.execute(trx);
      // Analyzed while small, as a fresh database's tables are; then checked often enough for a generic plan.
      await sql`INSERT INTO grown_parent VALUES (1)`.execute(trx);
      await sql`ANALYZE grown_parent`.execute(trx);
      for (let i = 0; i < 8; i += 1) await sql`INSERT INTO grown_child VALUES (1)`.execute(trx);
      await sql`INSERT INTO grown_parent SELECT generate_series(2, 20000)`.execute(trx);
      const grown = (await parentScans().execute(trx)).rows[0]!;
      for (let i = 0; i < 8; i += 1) await sql`INSERT INTO grown_child VALUES (${19_990 + i})`.execute(trx);
      return [grown, (await parentScans().execute(trx)).rows[0]!];
    });
    expect(after.seq_scan - before.seq_scan).toBe(0);
    expect(after.idx_scan - before.idx_scan).toBe(8);
  });
});
