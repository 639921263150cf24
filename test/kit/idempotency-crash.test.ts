import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { IDEMPOTENCY_LEASE_MS } from "../../src/http/idempotency.ts";
import type { TestContext } from "../helpers/context.ts";
import { openOrganizationContext } from "../helpers/factories.ts";
import { perProcessStart, spawnProject, stopSpawned } from "../helpers/process.ts";
import { paidOrder } from "../modules/refunds/refund-helpers.ts";

// A real server process killed after the refund committed and before its response was stored:
// the retry, served by another instance on the same database, must not refund again.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let refundToken: string;
let dataDir: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, refundToken],
  } = await openOrganizationContext(["checkouts:write"], ["refunds:write"]));
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-idempotency-"));
});
afterEach(stopSpawned);
afterAll(async () => {
  await ctx.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("Idempotency-Key across a process crash", () => {
  it(
    "a retry after kill -9 between the refund's commit and its stored response does not refund twice",
    async () => {
      const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
      const key = "crash-between-commit-and-response";
      // Storing the response blocks (the process is then killed while it waits).
      await sql`CREATE FUNCTION stall_response() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(600); RETURN NEW; END $$`.execute(
        ctx.deps.db,
      );
      await sql`CREATE TRIGGER stall_response BEFORE UPDATE ON idempotency_keys FOR EACH ROW WHEN (NEW.state = 'completed') EXECUTE FUNCTION stall_response()`.execute(
        ctx.deps.db,
      );
      const server = spawnProject(["src/server.ts"], {
        DATABASE_URL: ctx.database.url,
        DATA_DIR: dataDir,
        SECRET_KEY: ctx.deps.secret,
        PORT: "0",
        LOG_LEVEL: "info",
        WORKER_ENABLED: "false",
      });
      const [, url] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      const pending = fetch(`${url}/v1/refunds/`, {
        method: "POST",
        headers: { authorization: `Bearer ${refundToken}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ order_id: order.id, reason: "duplicate", amount: 300 }),
      }).catch((error: unknown) => error);
      const refunds = () => ctx.deps.db.selectFrom("refunds").select("amount").where("order_id", "=", order.id).execute();
      const stalled = () =>
        sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%idempotency_keys%'`.execute(
          ctx.deps.db,
        );
      await until(async () => (await stalled()).rows.length > 0);
      expect(await refunds()).toEqual([{ amount: 300 }]);
      server.child.kill("SIGKILL");
      await server.exited;
      expect(await pending).toBeInstanceOf(Error);
      // The dying process's statement is ended as the database would end it on its own once the socket is gone.
      for (const { pid } of (await stalled()).rows) await sql`SELECT pg_terminate_backend(${pid})`.execute(ctx.deps.db);
      await sql`DROP TRIGGER stall_response ON idempotency_keys; DROP FUNCTION stall_response()`.execute(ctx.deps.db);

      const record = await ctx.deps.db.selectFrom("idempotency_keys").selectAll().where("key", "=", key).executeTakeFirstOrThrow();
      expect(record.state).toBe("running");
      expect(record.committed_at).not.toBeNull();
      // Another instance answers the retry once the dead process's lease is over.
      ctx.clock.advance(IDEMPOTENCY_LEASE_MS + 1_000);
      const retry = await ctx.request({
        method: "POST",
        url: "/v1/refunds/",
        token: refundToken,
        headers: { "idempotency-key": key },
        payload: { order_id: order.id, reason: "duplicate", amount: 300 },
      });
      expect(retry.statusCode, retry.body).toBe(409);
      expect(retry.json().error).toBe("IdempotencyKeyInUse");
      expect(await refunds()).toEqual([{ amount: 300 }]);
    },
    perProcessStart(1),
  );
});
