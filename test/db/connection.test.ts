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
