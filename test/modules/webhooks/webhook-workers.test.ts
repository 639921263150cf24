import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Deps } from "../../../src/context.ts";
import { connect, type Connection } from "../../../src/db/connection.ts";
import { startWorker, type JobWorker } from "../../../src/jobs/runner.ts";
import { buildServices } from "../../../src/services.ts";
import { taskList } from "../../../src/tasks.ts";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { recordWebhookEvent } from "../../../src/jobs/webhook-outbox.ts";
import { webhookTasks } from "../../../src/modules/webhooks/webhooks.tasks.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization } from "../../helpers/factories.ts";
import { createWebhookEndpoint, recordEvent, startReceiver, waitFor, type Receiver } from "../../helpers/webhooks.ts";

/** Real graphile-worker runners on the test database, as a running API process has. */

let ctx: TestContext;
const silent = pino({ level: "silent" });
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => ctx.close());

async function runner(deps: Deps, pool: Connection["pool"], tasks = taskList(deps, buildServices(deps))): Promise<JobWorker> {
  const started = await startWorker({ pool, tasks, concurrency: 4, logger: silent });
  cleanups.push(() => started.stop());
  return started;
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

const pendingJobs = async (task: string) =>
  Number(
    (
      await ctx.deps.db
        .selectFrom("graphile_worker.jobs" as never)
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("task_identifier" as never, "=", task as never)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("durable delivery", () => {
  it("delivers events committed while no worker ran, and after a worker stopped between fan-out and delivery", async () => {
    const hook = await receiver();
    const organizationId = (await createOrganization(ctx.deps)).id;
    await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: ["order.paid"] });
    await recordEvent(ctx.deps, organizationId, "order.paid", { n: 1 });

    // A process that fans out and then dies before delivering anything.
    const fanoutOnly = webhookTasks(ctx.services.webhookDelivery);
    const dying = await runner(ctx.deps, ctx.database.pool, { [TaskName.webhookFanout]: fanoutOnly[TaskName.webhookFanout]! });
    await waitFor(async () => (await pendingJobs(TaskName.webhookFanout)) === 0);
    await dying.stop();
    cleanups.pop();
    expect(hook.received).toHaveLength(0);
    await recordEvent(ctx.deps, organizationId, "order.paid", { n: 2 });

    // The next process picks both up from the database.
    await runner(ctx.deps, ctx.database.pool);
    await waitFor(() => hook.received.length === 2);
    expect(hook.received.map((r) => JSON.parse(r.body).data.n)).toEqual([1, 2]);
  });

  it("sends nothing for a rolled-back change", async () => {
    const hook = await receiver();
    const organizationId = (await createOrganization(ctx.deps)).id;
    await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: ["order.created", "order.paid"] });
    const jobsBefore = await pendingJobs(TaskName.webhookFanout);
    await expect(
      ctx.deps.db.transaction().execute(async (trx) => {
        await recordWebhookEvent(trx, { organizationId, type: "order.created", data: { rolled: "back" }, now: ctx.clock.now() });
        throw new Error("the order could not be saved");
      }),
    ).rejects.toThrow("the order could not be saved");
    const events = await ctx.deps.db.selectFrom("webhook_events").select("id").where("organization_id", "=", organizationId).execute();
    expect(events).toEqual([]);
    expect(await pendingJobs(TaskName.webhookFanout)).toBe(jobsBefore);

    await runner(ctx.deps, ctx.database.pool);
    await recordEvent(ctx.deps, organizationId, "order.paid", { committed: true });
    await waitFor(() => hook.received.length === 1);
    // Give a wrongly queued event time to show up, then check it never did.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received.map((r) => JSON.parse(r.body).data)).toEqual([{ committed: true }]);
  });

  it("two processes with their own workers deliver each event once, in order per endpoint", async () => {
    const hooks = [await receiver(), await receiver()];
    const organizationId = (await createOrganization(ctx.deps)).id;
    const endpoints = [];
    for (const hook of hooks)
      endpoints.push(await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: ["checkout.updated"] }));

    const second = connect(ctx.database.url, 10);
    cleanups.push(() => second.close());
    const secondDeps: Deps = { ...ctx.deps, db: second.db, readDb: second.db };
    await runner(ctx.deps, ctx.database.pool);
    await runner(secondDeps, second.pool);

    const total = 60;
    // Recorded through both processes' pools in turn, each committed before the next begins, while
    // both workers deliver: events in causal order (concurrent transactions' events have none; see
    // docs/decisions.md, "Ordering per endpoint").
    for (let n = 0; n < total; n++) await recordEvent(n % 2 === 0 ? ctx.deps : secondDeps, organizationId, "checkout.updated", { n });
    await waitFor(() => hooks.every((hook) => hook.received.length >= total), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));

    for (const [i, hook] of hooks.entries()) {
      const ids = hook.received.map((r) => r.headers["webhook-id"]);
      expect(ids).toHaveLength(total);
      expect(new Set(ids).size).toBe(total);
      const expected = await ctx.deps.db
        .selectFrom("webhook_endpoint_events")
        .select(["id", "status"])
        .where("endpoint_id", "=", endpoints[i]!.id)
        .orderBy("sequence")
        .execute();
      expect(expected.every((row) => row.status === "succeeded")).toBe(true);
      expect(ids).toEqual(expected.map((row) => row.id));
    }
    // Same recording order on both endpoints.
    const order = (hook: Receiver) => hook.received.map((r) => JSON.parse(r.body).data.n);
    expect(order(hooks[0]!)).toEqual(order(hooks[1]!));
  });
});
