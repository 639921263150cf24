import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueJobs } from "../../src/jobs/queue.ts";
import { recordWebhookEvents } from "../../src/jobs/webhook-outbox.ts";
import { TaskName } from "../../src/jobs/task-names.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { queuedJobs } from "../helpers/jobs.ts";

let database: TestDatabase;
let listener: pg.Client;
let notified = 0;
beforeAll(async () => {
  database = await createTestDatabase();
  listener = new pg.Client({ connectionString: database.url });
  await listener.connect();
  listener.on("notification", () => (notified += 1));
  await listener.query(`LISTEN "jobs:insert"`);
});
afterAll(async () => {
  await listener.end();
  await database.drop();
});

/** The notifications the workers got from `work`: each committed one reaches the listener before its next answer. */
async function notificationsOf(work: () => Promise<unknown>): Promise<number> {
  await listener.query("SELECT 1");
  notified = 0;
  await work();
  await listener.query("SELECT 1");
  return notified;
}

describe("enqueueJobs", () => {
  it("adds jobs of both key modes in one statement, one notification per mode, each mode as add_job treats it", async () => {
    const soon = new Date(Date.now() + 60_000);
    const later = new Date(Date.now() + 120_000);
    const jobs = (runAt: Date) => [
      { task: "test.replace", payload: { n: 1 }, options: { jobKey: "replace-key", runAt } },
      { task: "test.preserve", payload: { n: 2 }, options: { jobKey: "preserve-key", jobKeyMode: "preserve_run_at" as const, runAt } },
      { task: "test.keyless", payload: { n: 3 }, options: { jobKeyMode: "preserve_run_at" as const } },
    ];
    expect(await notificationsOf(() => enqueueJobs(database.db, jobs(soon)))).toBe(2);
    expect(await notificationsOf(() => enqueueJobs(database.db, jobs(later)))).toBe(2);

    const [replaced] = await queuedJobs(database.db, { key: "replace-key" });
    expect(replaced).toMatchObject({ task: "test.replace", payload: { n: 1 }, run_at: later, revision: 1 });
    const [preserved] = await queuedJobs(database.db, { key: "preserve-key" });
    expect(preserved).toMatchObject({ task: "test.preserve", payload: { n: 2 }, run_at: soon, revision: 1 });
    expect((await queuedJobs(database.db, { task: "test.keyless" })).map((job) => job.payload)).toEqual([{ n: 3 }, { n: 3 }]);
  });

  it("adds events' fan-outs and the change's other jobs with the events, in one statement and one notification per mode", async () => {
    const [organization] = (
      await database.pool.query<{ id: string }>(`INSERT INTO organizations (name, slug) VALUES ('Outbox', 'outbox-jobs') RETURNING id`)
    ).rows;
    const now = new Date();
    const events = ["order.created", "order.paid", "order.updated"].map((type) => ({
      organizationId: organization!.id,
      type: type as "order.created" | "order.paid" | "order.updated",
      data: { id: "order-1" },
      now,
    }));
    let ids: string[] = [];
    const notifications = await notificationsOf(async () => {
      ids = await recordWebhookEvents(database.db, events, [
        { task: "test.with-events", payload: { n: 4 }, options: { jobKey: "with-events", jobKeyMode: "preserve_run_at" } },
      ]);
    });
    expect(notifications).toBe(1);
    const fanouts = await queuedJobs<{ eventId: string }>(database.db, { task: TaskName.webhookFanout });
    expect(fanouts.map((job) => job.payload.eventId).sort()).toEqual([...ids].sort());
    expect(await queuedJobs(database.db, { key: "with-events" })).toMatchObject([{ task: "test.with-events", payload: { n: 4 } }]);
  });
});
