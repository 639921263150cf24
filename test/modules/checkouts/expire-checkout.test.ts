import { runOnce, type JobHelpers } from "graphile-worker";
import { sql } from "kysely";
import { taskList } from "../../../src/tasks.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expireCheckoutTask } from "../../../src/modules/checkouts/checkouts.tasks.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createProduct } from "../../helpers/factories.ts";
import { eventsFor, openCheckoutContext } from "./checkout-helpers.ts";

let ctx: TestContext;
let token: string;
let productId: string;

beforeAll(async () => {
  ({ ctx, token, productId } = await openCheckoutContext());
});
afterAll(() => ctx.close());

const open = async () =>
  (await ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload: { products: [productId] } })).json<{
    id: string;
    client_secret: string;
    expires_at: string;
  }>();
const run = (checkoutId: string) =>
  expireCheckoutTask(ctx.deps, ctx.services.checkoutSessions, ctx.services.checkoutAbandonment)({ checkoutId }, {} as JobHelpers);
const statusOf = async (id: string) =>
  (await ctx.deps.db.selectFrom("checkouts").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status;
const jobFor = (id: string) =>
  ctx.deps.db
    .selectFrom("graphile_worker.jobs" as never)
    .select(["run_at" as never])
    .where("key" as never, "=", `checkout.expire:${id}` as never)
    .executeTakeFirst() as Promise<{ run_at: Date } | undefined>;

describe("checkout.expire task", () => {
  it("expires an open session at expires_at, once, with checkout.expired", async () => {
    const session = await open();
    expect((await jobFor(session.id))?.run_at.toISOString()).toBe(session.expires_at);
    ctx.clock.set(new Date(new Date(session.expires_at).getTime() + 1000));
    await run(session.id);
    await run(session.id);
    expect(await statusOf(session.id)).toBe("expired");
    expect(await eventsFor(ctx, session.id)).toEqual(["checkout.created", "checkout.expired"]);
    const gone = await ctx.request({ method: "PATCH", url: `/v1/checkouts/client/${session.client_secret}`, payload: {} });
    expect(gone.statusCode).toBe(410);
  });

  it("reschedules a session reached before its expiry and leaves it open", async () => {
    const session = await open();
    ctx.clock.set(new Date(new Date(session.expires_at).getTime() - 60_000));
    await run(session.id);
    expect(await statusOf(session.id)).toBe("open");
    expect((await jobFor(session.id))?.run_at.toISOString()).toBe(session.expires_at);
  });

  it("runs from the durable job queue through the registered task list", async () => {
    const session = await open();
    ctx.clock.set(new Date(new Date(session.expires_at).getTime() + 1000));
    // Make the stored job due now, as if the process had been down until after expires_at.
    await sql`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key = ${`checkout.expire:${session.id}`}`.execute(ctx.deps.db);
    const tasks = taskList(ctx.deps, ctx.services);
    await runOnce({ pgPool: ctx.database.pool, taskList: { "checkout.expire": tasks["checkout.expire"]! } });
    expect(await statusOf(session.id)).toBe("expired");
    // graphile-worker records a job's end a moment after runOnce returns (seen under a loaded machine).
    await vi.waitFor(async () => expect(await jobFor(session.id)).toBeUndefined());
  });

  it("leaves completed sessions alone", async () => {
    const free = await createProduct(
      ctx.deps,
      (await ctx.deps.db.selectFrom("products").select("organization_id").where("id", "=", productId).executeTakeFirstOrThrow())
        .organization_id,
      {
        prices: [{ amount_type: "free", price_amount: null }],
      },
    );
    const session = (
      await ctx.request({
        method: "POST",
        url: "/v1/checkouts/",
        token,
        payload: { products: [free.product.id], customer_email: "e@example.com" },
      })
    ).json();
    expect(
      (await ctx.request({ method: "POST", url: `/v1/checkouts/client/${session.client_secret}/confirm`, payload: {} })).statusCode,
    ).toBe(200);
    ctx.clock.set(new Date(new Date(session.expires_at).getTime() + 1000));
    await run(session.id);
    expect(await statusOf(session.id)).toBe("succeeded");
  });
});
