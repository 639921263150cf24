import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, tokenRefusals } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import { createCustomer, createForeignToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { parseCrontab, quickAddJob, runOnce } from "graphile-worker";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { AGGREGATION_INTERVAL_MS, AGGREGATION_JOB_KEY, compactAllMeterBucketDeltas } from "../../../src/modules/meters/meters.tasks.ts";
import { crontab, taskList } from "../../../src/tasks.ts";
import { aggregateMeters, ingest, runBackfills, type IngestEvent } from "./meters-helpers.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let readToken: string;
let foreignToken: string;
let unscopedToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, readToken, unscopedToken],
  } = await openOrganizationContext(["meters:write", "events:write"], ["meters:read"], ["events:write"]));
  foreignToken = await createForeignToken(ctx.deps, ["meters:read"]);
});
afterAll(() => ctx.close());

async function createMeter(name: string, eventName: string, aggregation: Record<string, unknown>): Promise<string> {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/meters/",
    token,
    payload: { name, filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: eventName }] }, aggregation },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

/** Batches of events named `name`, each `{n: 1}`, spread over customers `<name>0…` and the first hours of `day`. */
function unitBatches(name: string, shape: { batches: number; size: number; customers: number; hours: number; day: string }) {
  return Array.from({ length: shape.batches }, (_, b) =>
    Array.from({ length: shape.size }, (_, i) => ({
      name,
      external_customer_id: `${name}${i % shape.customers}`,
      external_id: `${name}-${b}-${i}`,
      timestamp: new Date(`${shape.day}T0${i % shape.hours}:00:00Z`).toISOString(),
      metadata: { n: 1 },
    })),
  );
}

/** The events a meter's bucket rows count, compacted or not. */
async function bucketEvents(meter: string): Promise<number> {
  const { rows } = await sql<{ events: string }>`SELECT sum(events) AS events FROM (
      SELECT events FROM meter_buckets WHERE meter_id = ${meter} UNION ALL SELECT events FROM meter_bucket_deltas WHERE meter_id = ${meter}
    ) b`.execute(ctx.deps.db);
  return Number(rows[0]!.events);
}

type Quantities = { quantities: { timestamp: string; quantity: number }[]; total: number };
async function quantities(id: string, query: Record<string, string | string[]>, as = readToken): Promise<Quantities> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) for (const v of [value].flat()) search.append(key, v);
  const response = await ctx.request({ method: "GET", url: `/v1/meters/${id}/quantities?${search.toString()}`, token: as });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("meters:quantities", 200, response.json());
  return response.json<Quantities>();
}
const values = (q: Quantities) => q.quantities.map((x) => x.quantity);

const at = (iso: string) => new Date(iso).toISOString();

describe("GET /v1/meters/{id}/quantities", () => {
  const usage: IngestEvent[] = [
    { name: "api", external_customer_id: "alice", timestamp: at("2026-03-01T00:30:00Z"), metadata: { tokens: 10, user: "u1" } },
    { name: "api", external_customer_id: "alice", timestamp: at("2026-03-01T23:59:59Z"), metadata: { tokens: 5, user: "u2" } },
    { name: "api", external_customer_id: "bob", timestamp: at("2026-03-02T05:00:00Z"), metadata: { tokens: 7, user: "u1" } },
    { name: "api", external_customer_id: "bob", timestamp: at("2026-03-03T12:00:00Z"), metadata: { tokens: 1.5, user: "u3" } },
    { name: "api", external_customer_id: "carol", timestamp: at("2026-03-03T18:45:00Z"), metadata: { user: "u3", region: "eu" } },
    { name: "other", external_customer_id: "alice", timestamp: at("2026-03-01T10:00:00Z"), metadata: { tokens: 1000 } },
  ];
  let count: string;
  let sum: string;
  let unique: string;
  let max: string;
  let avg: string;
  beforeAll(async () => {
    count = await createMeter("API calls", "api", { func: "count" });
    sum = await createMeter("API tokens", "api", { func: "sum", property: "tokens" });
    unique = await createMeter("API users", "api", { func: "unique", property: "metadata.user" });
    max = await createMeter("API max", "api", { func: "max", property: "tokens" });
    avg = await createMeter("API avg", "api", { func: "avg", property: "tokens" });
    await ingest(ctx, token, usage);
  });
  const range = { start_timestamp: "2026-03-01T00:00:00Z", end_timestamp: "2026-03-03T00:00:00Z", interval: "day" };

  it("answers each day of the range, with the total, right after ingest (the events read raw until aggregated)", async () => {
    expect(await bucketEvents(count)).toBe(0);
    const q = await quantities(count, range);
    expect(q.quantities).toEqual([
      { timestamp: "2026-03-01T00:00:00.000Z", quantity: 2 },
      { timestamp: "2026-03-02T00:00:00.000Z", quantity: 1 },
      { timestamp: "2026-03-03T00:00:00.000Z", quantity: 2 },
    ]);
    expect(q.total).toBe(5);
    expect(await quantities(sum, range)).toMatchObject({ total: 23.5 });
    expect(values(await quantities(sum, range))).toEqual([15, 7, 1.5]);
    expect(values(await quantities(unique, range))).toEqual([2, 1, 1]);
    expect((await quantities(unique, range)).total).toBe(3);
    expect(values(await quantities(max, range))).toEqual([10, 7, 1.5]);
    // The average of the values, not of the days' averages; carol's event has no `tokens`.
    expect(values(await quantities(avg, range))).toEqual([7.5, 7, 1.5]);
    expect((await quantities(avg, range)).total).toBe(23.5 / 4);
  });

  it("answers the same once aggregated into deltas, and once those are compacted into one bucket row per customer and hour", async () => {
    const before = await Promise.all([count, sum, unique, max, avg].map((id) => quantities(id, range)));
    await ctx.services.meters.aggregateAllIngested();
    expect(await bucketEvents(count)).toBe(5);
    expect(await Promise.all([count, sum, unique, max, avg].map((id) => quantities(id, range)))).toEqual(before);
    const deltas = await ctx.deps.db.selectFrom("meter_bucket_deltas").select("meter_id").where("meter_id", "=", count).execute();
    expect(deltas.length).toBeGreaterThan(0);
    expect(await compactAllMeterBucketDeltas(ctx.deps.db)).toBeGreaterThanOrEqual(deltas.length);
    expect(await ctx.deps.db.selectFrom("meter_bucket_deltas").select("meter_id").execute()).toEqual([]);
    const rows = await ctx.deps.db.selectFrom("meter_buckets").select("meter_id").where("meter_id", "=", count).execute();
    expect(rows.length).toBe(5);
    expect(await Promise.all([count, sum, unique, max, avg].map((id) => quantities(id, range)))).toEqual(before);
  });

  it("keeps each filter's events apart when meters sharing a filter and meters with another are aggregated in one statement", async () => {
    const [countA, sumA, countB, uniqueB] = [
      await createMeter("Mixed count a", "mixa", { func: "count" }),
      await createMeter("Mixed sum a", "mixa", { func: "sum", property: "tokens" }),
      await createMeter("Mixed count b", "mixb", { func: "count" }),
      await createMeter("Mixed unique b", "mixb", { func: "unique", property: "user" }),
    ];
    // Meters created one after another start at their own cuts; a first aggregation brings them to
    // one instant, so the second adds the next events of all four in one statement.
    await ingest(ctx, token, [
      { name: "mixa", external_customer_id: "alice", timestamp: at("2026-04-01T01:00:00Z"), metadata: { tokens: 3, user: "u1" } },
      { name: "mixb", external_customer_id: "bob", timestamp: at("2026-04-01T02:00:00Z"), metadata: { user: "u3" } },
    ]);
    await aggregateMeters(ctx);
    await ingest(ctx, token, [
      { name: "mixa", external_customer_id: "alice", timestamp: at("2026-04-01T01:30:00Z"), metadata: { tokens: 4, user: "u2" } },
      { name: "mixb", external_customer_id: "alice", timestamp: at("2026-04-01T01:10:00Z"), metadata: { tokens: 100, user: "u1" } },
      { name: "mixb", external_customer_id: "alice", timestamp: at("2026-04-01T01:20:00Z"), metadata: { tokens: 100, user: "u1" } },
    ]);
    const april = { start_timestamp: "2026-04-01T00:00:00Z", end_timestamp: "2026-04-01T23:00:00Z", interval: "day" };
    const expected = { [countA]: 2, [sumA]: 7, [countB]: 3, [uniqueB]: 2 };
    const totals = async () =>
      Object.fromEntries(await Promise.all([countA, sumA, countB, uniqueB].map(async (id) => [id, (await quantities(id, april)).total])));
    expect(await totals()).toEqual(expected);
    await aggregateMeters(ctx);
    expect(await bucketEvents(countA)).toBe(2);
    expect(await bucketEvents(countB)).toBe(3);
    expect(await totals()).toEqual(expected);
  });

  it("keeps the point as given: a mid-day start still counts whole days, empty days give 0", async () => {
    const q = await quantities(count, { start_timestamp: "2026-03-01T12:00:00Z", end_timestamp: "2026-03-05T11:00:00Z", interval: "day" });
    expect(q.quantities.map((x) => x.timestamp)).toEqual([
      "2026-03-01T12:00:00.000Z",
      "2026-03-02T12:00:00.000Z",
      "2026-03-03T12:00:00.000Z",
      "2026-03-04T12:00:00.000Z",
    ]);
    expect(values(q)).toEqual([2, 1, 2, 0]);
  });

  it("buckets days in the requested time zone, whole-hour and half-hour offsets alike", async () => {
    // New York (UTC-5 in March before the 8th): 2026-03-01T23:59:59Z is still 1 March there.
    const ny = await quantities(count, { ...range, start_timestamp: "2026-02-28T05:00:00Z", timezone: "America/New_York" });
    expect(ny.quantities.map((x) => x.timestamp)).toEqual([
      "2026-02-28T05:00:00.000Z",
      "2026-03-01T05:00:00.000Z",
      "2026-03-02T05:00:00.000Z",
    ]);
    expect(values(ny)).toEqual([1, 1, 1]);
    // Kolkata (UTC+5:30): day boundaries cut hours in half; those hours are read raw.
    const kolkata = await quantities(sum, { ...range, timezone: "Asia/Kolkata" });
    // 00:30Z = 06:00 on 1 March; 23:59:59Z = 05:29:59 on 2 March; 05:00Z = 10:30 on 2 March; 12:00Z and 18:45Z on 3 March (00:15 on the 4th).
    expect(values(kolkata)).toEqual([10, 12, 1.5]);
  });

  it("filters by customer, external ids expanded to the customer holding them", async () => {
    const customer = await createCustomer(ctx.deps, orgId, { external_id: "alice" });
    await ingest(ctx, token, [{ name: "api", customer_id: customer.id, timestamp: at("2026-03-02T01:00:00Z"), metadata: { tokens: 100 } }]);
    expect(values(await quantities(sum, { ...range, customer_id: customer.id }))).toEqual([15, 100, 0]);
    expect(values(await quantities(sum, { ...range, external_customer_id: "alice" }))).toEqual([15, 100, 0]);
    expect(values(await quantities(sum, { ...range, external_customer_id: ["bob", "carol"] }))).toEqual([0, 7, 1.5]);
    // Per customer first: alice by id and by external id is one customer.
    const perCustomer = await quantities(count, { ...range, customer_aggregation_function: "max" });
    expect(values(perCustomer)).toEqual([2, 1, 1]);
    expect(perCustomer.total).toBe(3);
    expect(values(await quantities(count, { ...range, customer_aggregation_function: "count" }))).toEqual([1, 2, 2]);
    expect(values(await quantities(sum, { ...range, customer_aggregation_function: "avg" }))).toEqual([15, 53.5, 0.75]);
  });

  it("filters by metadata, from the raw events", async () => {
    expect(values(await quantities(count, { ...range, "metadata[region]": "eu" }))).toEqual([0, 0, 1]);
    expect(values(await quantities(count, { ...range, "metadata[user]": ["u1", "u3"] }))).toEqual([1, 1, 2]);
  });

  it("answers exact quantities for a meter created after its events, before and after the back-fill", async () => {
    const late = await createMeter("Late tokens", "api", { func: "sum", property: "tokens" });
    const lateUnique = await createMeter("Late users", "api", { func: "unique", property: "user" });
    await ingest(ctx, token, [
      { name: "api", external_customer_id: "dave", timestamp: at("2026-03-03T01:00:00Z"), metadata: { tokens: 2, user: "u9" } },
    ]);
    const pending = await quantities(late, range);
    const pendingUnique = await quantities(lateUnique, range);
    expect(values(pending)).toEqual([15, 107, 3.5]);
    expect(values(pendingUnique)).toEqual([2, 1, 2]);
    expect(await runBackfills(ctx)).toBeGreaterThanOrEqual(2);
    expect(await quantities(late, range)).toEqual(pending);
    expect(await quantities(lateUnique, range)).toEqual(pendingUnique);
    // A retried job adds nothing twice.
    await ctx.services.meters.backfill({ meter_id: late, generation: 0 });
    expect(await quantities(late, range)).toEqual(pending);
  });

  it("counts an event once however often and however concurrently it is sent", async () => {
    const meter = await createMeter("Deduped", "dedupe", { func: "sum", property: "n" });
    const batch = Array.from({ length: 50 }, (_, i) => ({
      name: "dedupe",
      external_customer_id: `c${i % 3}`,
      external_id: `dedupe-${i}`,
      timestamp: at(`2026-03-01T0${i % 10}:00:00Z`),
      metadata: { n: i },
    }));
    const results = await Promise.all(Array.from({ length: 6 }, (_, k) => ingest(ctx, token, k % 2 === 0 ? batch : [...batch].reverse())));
    expect(results.reduce((n, r) => n + r.inserted, 0)).toBe(50);
    const q = await quantities(meter, { ...range, end_timestamp: "2026-03-01T00:00:00Z" });
    expect(q.total).toBe((49 * 50) / 2);
    await aggregateMeters(ctx);
    expect(await bucketEvents(meter)).toBe(50);
  });

  it("drops in a compaction the deltas of a meter that no longer exists", async () => {
    const gone = "00000000-0000-4000-8000-000000000001";
    await sql`INSERT INTO meter_bucket_deltas (meter_id, customer_key, bucket, events, "values") VALUES (${gone}, 'e:x', now(), 1, 0)`.execute(
      ctx.deps.db,
    );
    await compactAllMeterBucketDeltas(ctx.deps.db);
    expect(await bucketEvents(gone)).toBe(0);
  });

  it("is aggregated and compacted by the meters:aggregate job, which schedules its next run a few seconds later, one at a time", async () => {
    const meter = await createMeter("Chained", "chained", { func: "count" });
    const batches = unitBatches("chained", { batches: 1, size: 12, customers: 3, hours: 2, day: "2026-03-01" });
    await ingest(ctx, token, batches[0]!);
    expect(await bucketEvents(meter)).toBe(0);
    const pool = { pgPool: ctx.database.pool };
    const pending = () => queuedJobs(ctx.deps.db, { task: TaskName.meterEventsAggregate });
    await quickAddJob(pool, TaskName.meterEventsAggregate, {}, { jobKey: AGGREGATION_JOB_KEY });
    await runOnce({
      ...pool,
      taskList: { [TaskName.meterEventsAggregate]: taskList(ctx.deps, ctx.services)[TaskName.meterEventsAggregate]! },
    });
    expect(await ctx.deps.db.selectFrom("meter_bucket_deltas").select("meter_id").where("meter_id", "=", meter).execute()).toEqual([]);
    expect(await bucketEvents(meter)).toBe(12);
    const [next, ...others] = await pending();
    expect(others).toEqual([]);
    expect(next).toMatchObject({ key: AGGREGATION_JOB_KEY, locked_at: null });
    const delay = next!.run_at.getTime() - next!.now.getTime();
    expect(delay).toBeGreaterThan(AGGREGATION_INTERVAL_MS - 2_000);
    expect(delay).toBeLessThanOrEqual(AGGREGATION_INTERVAL_MS);
    // The crontab's minutely add (same key, the pending run's time kept) leaves the one chained run.
    const cron = parseCrontab(crontab).find((item) => item.task === TaskName.meterEventsAggregate)!;
    expect(cron.match({ min: 7, hour: 3, date: 14, month: 3, dow: 2 })).toBe(true);
    await quickAddJob(pool, TaskName.meterEventsAggregate, {}, { jobKey: cron.options.jobKey!, jobKeyMode: cron.options.jobKeyMode! });
    expect(await pending()).toEqual([expect.objectContaining({ key: AGGREGATION_JOB_KEY, run_at: next!.run_at })]);
    await sql`SELECT graphile_worker.remove_job(${AGGREGATION_JOB_KEY})`.execute(ctx.deps.db);
  });

  it("counts every event once while aggregations and compactions race the batches", async () => {
    const meter = await createMeter("Compacted", "compact", { func: "sum", property: "n" });
    const batches = unitBatches("compact", { batches: 16, size: 30, customers: 5, hours: 3, day: "2026-03-01" });
    const total = async () => (await quantities(meter, { ...range, end_timestamp: "2026-03-01T00:00:00Z" })).total;
    // Two workers' runs loop until the last batch has answered, while quantities are read: at any
    // moment each event is either in the buckets or read raw, never both.
    let ingesting = true;
    const totals: number[] = [];
    const working = async () => {
      let runs = 0;
      for (; ingesting; runs += 1) {
        await aggregateMeters(ctx);
        totals.push(await total());
      }
      return runs;
    };
    const loops = [working(), working()];
    const results = await Promise.all(batches.map((batch) => ingest(ctx, token, batch)));
    ingesting = false;
    expect((await Promise.all(loops)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(results.reduce((n, r) => n + r.inserted, 0)).toBe(480);
    // Each read counts whole batches only: 30 events each.
    for (const seen of totals) expect([seen % 30, seen <= 480]).toEqual([0, true]);
    expect(await total()).toBe(480);
    await aggregateMeters(ctx);
    expect(await bucketEvents(meter)).toBe(480);
    expect(await total()).toBe(480);
    const { rows } = await sql<{
      keys: number;
      rows: number;
    }>`SELECT count(DISTINCT (customer_key, bucket))::int AS keys, count(*)::int AS rows
      FROM meter_buckets WHERE meter_id = ${meter}`.execute(ctx.deps.db);
    expect(rows[0]).toEqual({ keys: 15, rows: 15 });
  });

  it("counts every event once when its meters are created while batches are being ingested", async () => {
    const batches = unitBatches("race", { batches: 12, size: 40, customers: 4, hours: 10, day: "2026-03-02" });
    // Meters created at staggered moments, so that creations land among the batches (each is then
    // fed partly by the aggregation, partly by its back-fill); some batches are sent twice.
    const creations = [5, 20, 40].map(async (delay, k) => {
      await new Promise((resolve) => setTimeout(resolve, delay));
      return createMeter(`Raced ${k}`, "race", { func: "sum", property: "n" });
    });
    // An aggregation loop runs meanwhile, so that cuts land among the batches and the creations too.
    let ingesting = true;
    const aggregating = (async () => {
      while (ingesting) await aggregateMeters(ctx);
    })();
    const sent = [...batches, ...batches.slice(0, 4)].map((batch) => ingest(ctx, token, batch));
    const [meters] = await Promise.all([Promise.all(creations), Promise.all(sent)]);
    ingesting = false;
    await aggregating;
    await runBackfills(ctx);
    const totals = async () =>
      Promise.all(meters.map(async (meter) => (await quantities(meter, { ...range, end_timestamp: "2026-03-02T00:00:00Z" })).total));
    expect(await totals()).toEqual(meters.map(() => 12 * 40));
    await aggregateMeters(ctx);
    expect(await totals()).toEqual(meters.map(() => 12 * 40));
  });

  it("answers a range whose end is before its start as the anchor, in the reference's error shape", async () => {
    const response = await ctx.request({
      method: "GET",
      url: `/v1/meters/${count}/quantities?start_timestamp=2026-03-03T00:00:00Z&end_timestamp=2026-03-01T00:00:00Z&interval=day`,
      token: readToken,
    });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("meters:quantities", 422, response.json());
    expect(response.json().detail).toEqual([
      {
        loc: ["query"],
        msg: "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
        type: "value_error",
        input: { start_timestamp: "2026-03-03T00:00:00Z", end_timestamp: "2026-03-01T00:00:00Z", interval: "day" },
      },
    ]);
    const missing = await ctx.request({
      method: "GET",
      url: `/v1/meters/${count}/quantities?start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-02T00:00:00Z&interval=day`,
      token: foreignToken,
    });
    expect(missing.statusCode).toBe(404);
    expectReferenceResponse("meters:quantities", 404, missing.json());
  });

  describe("bad input", () => {
    const get =
      (query: string, as: () => string | null = () => readToken, id = () => count) =>
      () => ({
        method: "GET" as const,
        url: `/v1/meters/${id()}/quantities?${query}`,
        token: as(),
      });
    const ok = "start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-03T00:00:00Z&interval=day";
    badInputTable(
      () => ctx.request,
      [
        {
          name: "no start",
          request: get("end_timestamp=2026-03-03T00:00:00Z&interval=day"),
          status: 422,
          loc: ["query", "start_timestamp"],
        },
        {
          name: "no interval",
          request: get("start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-03T00:00:00Z"),
          status: 422,
          loc: ["query", "interval"],
        },
        { name: "an unknown interval", request: get(ok.replace("day", "minute")), status: 422, loc: ["query", "interval"] },
        {
          name: "a start without time zone",
          request: get(ok.replace("2026-03-01T00:00:00Z", "2026-03-01T00:00:00")),
          status: 422,
          loc: ["query", "start_timestamp"],
        },
        {
          name: "an end before the start",
          request: get("start_timestamp=2026-03-03T00:00:00Z&end_timestamp=2026-03-01T00:00:00Z&interval=day"),
          status: 422,
          loc: ["query"],
        },
        {
          name: "too many hours",
          request: get("start_timestamp=2026-03-01T00:00:00Z&end_timestamp=2026-03-09T00:00:00Z&interval=hour"),
          status: 422,
          loc: ["query"],
        },
        {
          name: "too many days",
          request: get("start_timestamp=2025-01-01T00:00:00Z&end_timestamp=2026-03-09T00:00:00Z&interval=day"),
          status: 422,
          loc: ["query"],
        },
        {
          name: "a start before 2023",
          request: get(ok.replace("2026-03-01", "2022-12-31")),
          status: 422,
          loc: ["query", "start_timestamp"],
        },
        { name: "an unknown time zone", request: get(`${ok}&timezone=Mars/Olympus`), status: 422, loc: ["query", "timezone"] },
        { name: "a non-UUID customer", request: get(`${ok}&customer_id=nope`), status: 422, loc: ["query", "customer_id", 0] },
        {
          name: "an unknown customer function",
          request: get(`${ok}&customer_aggregation_function=median`),
          status: 422,
          loc: ["query", "customer_aggregation_function"],
        },
        {
          name: "a non-UUID meter",
          request: get(
            ok,
            () => readToken,
            () => "nope",
          ),
          status: 422,
          loc: ["path", "id"],
        },
        { name: "another organization's meter", request: get(ok, () => foreignToken), status: 404, error: "ResourceNotFound" },
        {
          name: "an overlong external customer id",
          request: get(`${ok}&external_customer_id=${"x".repeat(257)}`),
          status: 422,
          loc: ["query", "external_customer_id", 0],
        },
        { name: "an empty time zone", request: get(`${ok}&timezone=`), status: 422, loc: ["query", "timezone"] },
        ...tokenRefusals((as) => get(ok, as), { "a token without meter scopes": () => unscopedToken }),
      ],
    );
  });
});
