import { parseCrontab, quickAddJob, runOnce } from "graphile-worker";
import { Migrator, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../../../migrations/index.ts";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { realTime } from "../../../src/values/clock.ts";
import { ensureEventPartitions, monthPartition, PARTITION_MONTHS_AHEAD } from "../../../src/modules/events/event-partitions.ts";
import { crontab, taskList } from "../../../src/tasks.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganizationToken } from "../../helpers/factories.ts";
import { createIngestFixture, postEvents, uniqueId } from "./ingest-fixture.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;

beforeAll(async () => {
  ({ ctx, orgId, writeToken } = await createIngestFixture());
});
afterAll(() => ctx.close());

const DAY_MS = 24 * 3600 * 1000;
const ingest = (events: unknown) => postEvents(ctx, events, writeToken);

/** The partition holding each event of the organization with these external ids, from the row itself. */
async function partitionsOf(externalIds: readonly string[]): Promise<{ external_id: string; partition: string; ingested_at: Date }[]> {
  const { rows } = await sql<{ external_id: string; partition: string; ingested_at: Date }>`
    SELECT external_id, tableoid::regclass::text AS partition, ingested_at FROM events
    WHERE organization_id = ${orgId} AND external_id = ANY(${externalIds}::text[]) ORDER BY external_id`.execute(ctx.deps.db);
  return rows;
}

/** Every partition attached to `events`, with its bound as PostgreSQL prints it. */
async function attachedPartitions(): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; bound: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`.execute(ctx.deps.db);
  return new Map(rows.map((row) => [row.name, row.bound]));
}

const databaseNow = async () => (await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(ctx.deps.db)).rows[0]!.now;

/** Runs the `events:partitions` job once, from the durable queue through the registered task list. */
async function runPartitionJob(): Promise<void> {
  await quickAddJob({ pgPool: ctx.database.pool }, TaskName.eventPartitions, {});
  const tasks = taskList(ctx.deps, ctx.services);
  await runOnce({ pgPool: ctx.database.pool, taskList: { [TaskName.eventPartitions]: tasks[TaskName.eventPartitions]! } });
}

describe("events partitioned by month of ingestion", () => {
  it("is a table partitioned by range of ingested_at, with a default partition", async () => {
    const { rows } = await sql<{ key: string }>`SELECT pg_get_partkeydef('events'::regclass) AS key`.execute(ctx.deps.db);
    expect(rows[0]!.key).toBe("RANGE (ingested_at)");
    expect((await attachedPartitions()).get("events_default")).toBe("DEFAULT");
  });

  it("stores ingested events in the partition of their ingestion month, whatever their timestamp", async () => {
    const ids = [uniqueId("old"), uniqueId("recent"), uniqueId("now")];
    const timestamps = ["2019-03-01T12:00:00Z", new Date(ctx.clock.now().getTime() - 40 * DAY_MS).toISOString(), undefined];
    const response = await ingest(
      ids.map((external_id, i) => ({ name: "p", external_customer_id: "u1", external_id, timestamp: timestamps[i] })),
    );
    expect(response.json()).toEqual({ inserted: 3, duplicates: 0 });
    const stored = await partitionsOf(ids);
    expect(stored).toHaveLength(3);
    for (const row of stored) {
      expect(row.partition).toBe(monthPartition(row.ingested_at, 0).name);
    }
    const bounds = (await attachedPartitions()).get(stored[0]!.partition);
    const month = monthPartition(stored[0]!.ingested_at, 0);
    expect(bounds).toBe(
      `FOR VALUES FROM ('${month.start.toISOString().slice(0, 10)} 00:00:00+00') TO ('${month.end.toISOString().slice(0, 10)} 00:00:00+00')`,
    );
  });

  it("counts an external id once when its first copy sits in an earlier month's partition", async () => {
    const now = await databaseNow();
    await ensureEventPartitions(ctx.deps.db, new Date(now.getTime() - 62 * DAY_MS));
    const [moved, fresh] = [uniqueId("moved"), uniqueId("fresh")];
    expect((await ingest([{ name: "p", external_customer_id: "u1", external_id: moved }])).json()).toEqual({ inserted: 1, duplicates: 0 });
    // As if it had been ingested last month: the row moves to that month's partition.
    await sql`UPDATE events SET ingested_at = ingested_at - interval '35 days' WHERE organization_id = ${orgId} AND external_id = ${moved}`.execute(
      ctx.deps.db,
    );
    const [before] = await partitionsOf([moved]);
    expect(before!.partition).toBe(monthPartition(new Date(now.getTime() - 35 * DAY_MS), 0).name);
    expect(before!.partition).not.toBe(monthPartition(now, 0).name);

    const again = await ingest([
      { name: "p", external_customer_id: "u1", external_id: moved },
      { name: "p", external_customer_id: "u1", external_id: fresh },
    ]);
    expect(again.json()).toEqual({ inserted: 1, duplicates: 1 });
    const stored = await partitionsOf([moved, fresh]);
    expect(stored.map((row) => [row.external_id, row.partition])).toEqual(
      [
        [moved, before!.partition],
        [fresh, monthPartition(now, 0).name],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
  });

  it("counts each external id once when parallel batches race, some of their ids already in an earlier partition", async () => {
    const now = await databaseNow();
    await ensureEventPartitions(ctx.deps.db, new Date(now.getTime() - 62 * DAY_MS));
    const ids = Array.from({ length: 100 }, (_, i) => `race-${i}-${uniqueId("r")}`);
    const earlier = ids.filter((_, i) => i % 2 === 0);
    await ingest(earlier.map((external_id) => ({ name: "race", external_customer_id: "u2", external_id })));
    await sql`UPDATE events SET ingested_at = ingested_at - interval '35 days' WHERE organization_id = ${orgId} AND external_id = ANY(${earlier}::text[])`.execute(
      ctx.deps.db,
    );
    const batch = ids.map((external_id) => ({ name: "race", external_customer_id: "u2", external_id }));
    const reversed = [...batch].reverse();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => ingest(i % 2 === 0 ? batch : reversed)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    const bodies = responses.map((r) => r.json<{ inserted: number; duplicates: number }>());
    expect(bodies.reduce((sum, b) => sum + b.inserted, 0)).toBe(50);
    expect(bodies.reduce((sum, b) => sum + b.duplicates, 0)).toBe(8 * 100 - 50);
    const stored = await partitionsOf(ids);
    expect(stored.map((row) => row.external_id)).toEqual([...ids].sort());
    expect(new Set(stored.map((row) => row.partition)).size).toBe(2);
  });

  it("keeps ingesting while the job creates and attaches partitions", async () => {
    const now = await databaseNow();
    const ids = Array.from({ length: 6 }, (_, i) => Array.from({ length: 200 }, (_, j) => `attach-${i}-${j}-${uniqueId("a")}`));
    const [responses] = await Promise.all([
      Promise.all(ids.map((batch) => ingest(batch.map((external_id) => ({ name: "attach", external_customer_id: "u3", external_id }))))),
      ensureEventPartitions(ctx.deps.db, new Date(now.getTime() + 400 * DAY_MS)),
      ensureEventPartitions(ctx.deps.db, new Date(now.getTime() + 500 * DAY_MS)),
    ]);
    expect(responses.map((r) => r.json())).toEqual(Array(6).fill({ inserted: 200, duplicates: 0 }));
    const partitions = await attachedPartitions();
    for (let i = 0; i <= PARTITION_MONTHS_AHEAD; i += 1) {
      expect(partitions.has(monthPartition(new Date(now.getTime() + 400 * DAY_MS), i).name)).toBe(true);
      expect(partitions.has(monthPartition(new Date(now.getTime() + 500 * DAY_MS), i).name)).toBe(true);
    }
  });
});

describe("the events:partitions job", () => {
  it("is scheduled every hour", () => {
    const item = parseCrontab(crontab).find((entry) => entry.task === TaskName.eventPartitions);
    expect(item).toBeDefined();
    // Once in every hour of a day.
    const minutes = Array.from({ length: 24 * 60 }, (_, i) => ({ min: i % 60, hour: Math.floor(i / 60), date: 14, month: 3, dow: 2 }));
    const matched = minutes.filter((digest) => item!.match(digest));
    expect(matched.map((digest) => digest.hour)).toEqual(Array.from({ length: 24 }, (_, hour) => hour));
    expect(new Set(matched.map((digest) => digest.min)).size).toBe(1);
  });

  it("creates the clock's month and the next ones ahead, once, moving rows the default partition held for them", async () => {
    const now = await databaseNow();
    // Beyond the months the tests above create.
    const ahead = new Date(now.getTime() + 800 * DAY_MS);
    const months = Array.from({ length: PARTITION_MONTHS_AHEAD + 1 }, (_, i) => monthPartition(ahead, i));
    const before = await attachedPartitions();
    for (const month of months) expect(before.has(month.name)).toBe(false);
    // A row ingested (by its clock) in a month no partition covers yet goes to the default partition.
    const strayId = uniqueId("stray");
    const strayAt = new Date(months[1]!.start.getTime() + 3 * DAY_MS);
    await sql`INSERT INTO events (organization_id, name, "timestamp", external_id, ingested_at)
      VALUES (${orgId}, 'stray', ${strayAt}, ${strayId}, ${strayAt})`.execute(ctx.deps.db);
    expect((await partitionsOf([strayId]))[0]!.partition).toBe("events_default");

    ctx.clock.set(ahead);
    expect(monthPartition(realTime(ctx.deps.now), 0).name).toBe(months[0]!.name);
    await runPartitionJob();
    const after = await attachedPartitions();
    for (const month of months) {
      expect(after.get(month.name)).toBe(
        `FOR VALUES FROM ('${month.start.toISOString().slice(0, 10)} 00:00:00+00') TO ('${month.end.toISOString().slice(0, 10)} 00:00:00+00')`,
      );
    }
    expect(after.has(monthPartition(ahead, PARTITION_MONTHS_AHEAD + 1).name)).toBe(false);
    expect((await partitionsOf([strayId]))[0]!.partition).toBe(months[1]!.name);

    // Idempotent: a second run (and a direct call) creates nothing and changes nothing.
    await runPartitionJob();
    expect(await ensureEventPartitions(ctx.deps.db, ahead)).toEqual([]);
    expect(await attachedPartitions()).toEqual(after);
    ctx.clock.set(new Date());
  });
});

describe("migration 2026-11-25T0290: events partitioned by month", () => {
  const MIGRATION = "2026-11-25T0290_events_partitioned_by_month";

  it("moves existing events into the partitions of their months and claims their external ids, and back on the way down", async () => {
    const context = await createTestContext();
    try {
      const { db } = context.deps;
      const names = Object.keys(migrations);
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo(names[names.indexOf(MIGRATION) - 1]!)).error).toBeUndefined();
      const { rows: organizations } = await sql<{ id: string }>`INSERT INTO organizations (name, slug)
        VALUES ('Old', ${uniqueId("old")}) RETURNING id`.execute(db);
      const organizationId = organizations[0]!.id;
      const old = [
        { external_id: "sept", ingested_at: "2026-09-10T08:00:00Z" },
        { external_id: "oct", ingested_at: "2026-10-31T23:59:59.999Z" },
        { external_id: null, ingested_at: "2026-10-01T00:00:00Z" },
      ];
      for (const row of old) {
        await sql`INSERT INTO events (organization_id, name, "timestamp", external_id, ingested_at)
          VALUES (${organizationId}, 'old', '2020-01-01T00:00:00Z', ${row.external_id}, ${row.ingested_at})`.execute(db);
      }

      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const { rows: stored } = await sql<{ external_id: string | null; partition: string }>`
        SELECT external_id, tableoid::regclass::text AS partition FROM events WHERE organization_id = ${organizationId}
        ORDER BY ingested_at`.execute(db);
      expect(stored).toEqual([
        { external_id: "sept", partition: "events_p2026_09" },
        { external_id: null, partition: "events_p2026_10" },
        { external_id: "oct", partition: "events_p2026_10" },
      ]);
      const current = monthPartition(new Date(), 0).name;
      const { rows: partitions } = await sql<{ name: string }>`SELECT c.relname AS name FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`.execute(db);
      expect(partitions.map((row) => row.name)).toEqual(
        expect.arrayContaining(["events_p2026_09", "events_p2026_10", current, "events_default"]),
      );

      const token = await createOrganizationToken(context.deps, organizationId, ["events:write"]);
      const again = await postEvents(
        context,
        ["sept", "oct", "new"].map((external_id) => ({ name: "again", external_customer_id: "u", external_id })),
        token,
      );
      expect(again.json()).toEqual({ inserted: 1, duplicates: 2 });

      expect((await migrator.migrateTo(names[names.indexOf(MIGRATION) - 1]!)).error).toBeUndefined();
      const { rows: down } = await sql<{ n: number; partitioned: boolean }>`SELECT count(*)::int AS n,
        (SELECT relkind = 'p' FROM pg_class WHERE oid = 'events'::regclass) AS partitioned
        FROM events WHERE organization_id = ${organizationId}`.execute(db);
      expect(down[0]).toEqual({ n: 4, partitioned: false });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});
