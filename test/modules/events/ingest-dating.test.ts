import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockIngestExclusive } from "../../../src/modules/meters/meter-ingest-locks.repository.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createIngestFixture, postEvents, uniqueId } from "./ingest-fixture.ts";

// What the database fills in for an ingest (migration 2026-12-04T0200): `ingested_at` (the
// statement's arrival, after the ingest lock) and `root_id` (generated), on both write paths.

let ctx: TestContext;
let orgId: string;
let writeToken: string;

beforeAll(async () => {
  ({ ctx, orgId, writeToken } = await createIngestFixture());
});
afterAll(() => ctx.close());

const stored = (externalIds: string[]) =>
  ctx.deps.db
    .selectFrom("events")
    .select(["id", "external_id", "parent_id", "root_id", "ingested_at"])
    .where("organization_id", "=", orgId)
    .where("external_id", "in", externalIds)
    .execute();

/** Whether some backend of this database waits for a lock (the ingest behind the held cut). */
const someoneWaits = async () => {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.execute(ctx.deps.db);
  return rows[0]!.n > 0;
};

/** How many of the events were dated at or before `instant`. */
const datedBy = async (externalIds: string[], instant: string) => {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM events
    WHERE organization_id = ${orgId} AND external_id = ANY(${externalIds}::text[]) AND ingested_at <= ${instant}::timestamptz`.execute(
    ctx.deps.db,
  );
  return rows[0]!.n;
};

/**
 * Sends the batch while a cut holds the organization's exclusive ingest lock, and lets the cut go
 * once the ingest waits for it: answers the cut's instant and the response.
 */
async function ingestBehindACut(events: unknown[]) {
  let pending: ReturnType<typeof postEvents> | undefined;
  const cut = await ctx.deps.db.transaction().execute(async (trx) => {
    await lockIngestExclusive(trx, orgId);
    pending = postEvents(ctx, events, writeToken);
    for (let tries = 0; !(await someoneWaits()); tries += 1) {
      if (tries > 2_000) throw new Error("the ingest never waited for the cut");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Read once the ingest waits: its transaction began before this instant, its statements come after.
    // As text, exact to the microsecond (a Date keeps milliseconds).
    const { rows } = await sql<{ at: string }>`SELECT clock_timestamp()::text AS at`.execute(trx);
    return rows[0]!.at;
  });
  return { cut, response: await pending! };
}

describe("what the database fills in for an ingest", () => {
  it("dates a batch's events with one instant after the cut it waited for, and makes each root its own root", async () => {
    const [a, b, c] = [uniqueId("a"), uniqueId("b"), uniqueId("c")];
    const { cut, response } = await ingestBehindACut([
      { name: "x", external_customer_id: "u", external_id: a },
      { name: "x", external_customer_id: "u", external_id: b },
      { name: "x", external_customer_id: "u", external_id: c, parent_id: a },
    ]);
    expect(response.json()).toEqual({ inserted: 3, duplicates: 0 });
    const rows = await stored([a, b, c]);
    expect(new Set(rows.map((row) => row.ingested_at.getTime())).size).toBe(1);
    expect(await datedBy([a, b, c], cut)).toBe(0);
    for (const row of rows) expect(row.root_id).toBe(row.parent_id === null ? row.id : null);
  });

  it("does the same on the path that skips a known external id", async () => {
    const known = uniqueId("known");
    expect((await postEvents(ctx, [{ name: "x", external_customer_id: "u", external_id: known }], writeToken)).json()).toEqual({
      inserted: 1,
      duplicates: 0,
    });
    const [d, e] = [uniqueId("d"), uniqueId("e")];
    const { cut, response } = await ingestBehindACut([
      { name: "x", external_customer_id: "u", external_id: known },
      { name: "x", external_customer_id: "u", external_id: d },
      { name: "x", external_customer_id: "u", external_id: e, parent_id: d },
    ]);
    expect(response.json()).toEqual({ inserted: 2, duplicates: 1 });
    const rows = await stored([d, e]);
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.ingested_at.getTime())).size).toBe(1);
    expect(await datedBy([d, e], cut)).toBe(0);
    for (const row of rows) expect(row.root_id).toBe(row.parent_id === null ? row.id : null);
  });
});
