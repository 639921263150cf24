import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { compileFilter } from "../../../src/modules/meters/meter-filter.repository.ts";
import type { MeterFilter } from "../../../src/modules/meters/meters.schemas.ts";
import { aggregateMeters, ingest, runBackfills, type IngestEvent } from "./meters-helpers.ts";

/**
 * The property: whatever the events and the meter, every quantity answered from the pre-aggregates
 * (kept by the aggregation job or by the back-fill, or read raw until they run) equals the same aggregation
 * computed straight from the raw rows by the plain SQL below, for random ranges, intervals, time
 * zones (with DST changes, and 30- and 45-minute offsets) and per-customer functions.
 */

let ctx: TestContext;
beforeAll(async () => {
  ({ ctx } = await openOrganizationContext(["meters:read"]));
});
afterAll(() => ctx.close());

// Bucket edges and DST changes (US, EU, Lord Howe's half hour), each event a few minutes either side.
const ANCHORS = [
  "2026-03-08T07:00:00Z",
  "2026-03-29T01:00:00Z",
  "2026-04-05T15:00:00Z",
  "2026-03-31T23:00:00Z",
  "2026-10-04T15:30:00Z",
  "2026-10-25T01:00:00Z",
  "2026-11-01T06:00:00Z",
  "2026-06-30T18:30:00Z",
].map((iso) => Date.parse(iso));
// Half the zones have 30- or 45-minute offsets, where interval boundaries cut hours.
const ZONES = [
  "UTC",
  "America/New_York",
  "Europe/Berlin",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Australia/Lord_Howe",
  "America/St_Johns",
  "Australia/Adelaide",
];
const MAX_SPAN_DAYS = { hour: 3, day: 45, week: 70, month: 240, year: 400 } as const;

const instant = fc
  .tuple(fc.constantFrom(...ANCHORS), fc.integer({ min: -150, max: 150 }), fc.constantFrom(0, 1, 59))
  .map(([anchor, minutes, seconds]) => new Date(anchor + minutes * 60_000 + seconds * 1000));

const metadata = fc.record(
  {
    n: fc.oneof(
      fc.integer({ min: -10, max: 100 }),
      fc.integer({ min: -1000, max: 10_000 }).map((x) => x / 100),
      fc.constant("5"),
    ),
    k: fc.constantFrom("x", "y", "x1"),
    flag: fc.boolean(),
  },
  { requiredKeys: [] },
);

const event = fc.record({
  name: fc.constantFrom("a", "b"),
  customer: fc.constantFrom("c0", "c1", "c2", "id"),
  timestamp: instant,
  metadata,
});

const clause = fc.oneof(
  fc.record({ property: fc.constant("name"), operator: fc.constantFrom("eq", "ne"), value: fc.constantFrom("a", "b") }),
  fc.record({
    property: fc.constantFrom("k", "metadata.k"),
    operator: fc.constantFrom("eq", "ne", "like", "not_like"),
    value: fc.constantFrom("x", "y", "1"),
  }),
  fc.record({
    property: fc.constant("n"),
    operator: fc.constantFrom("eq", "ne", "gt", "gte", "lt", "lte"),
    value: fc.integer({ min: -5, max: 50 }),
  }),
  fc.record({ property: fc.constant("flag"), operator: fc.constantFrom("eq", "ne"), value: fc.boolean() }),
  fc.record({
    property: fc.constant("timestamp"),
    operator: fc.constantFrom("gt", "lt"),
    value: fc.constantFrom(...ANCHORS.map((ms) => ms / 1000)),
  }),
);
const conjunction = fc.constantFrom("and" as const, "or" as const);
// Often empty (every event) or a disjunction, so that most ranges have something to count.
const filter: fc.Arbitrary<MeterFilter> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<MeterFilter>({ conjunction: "and", clauses: [] }) },
  {
    weight: 3,
    arbitrary: fc.record({
      conjunction: fc.constantFrom("or" as const, "or" as const, "and" as const),
      clauses: fc.array(fc.oneof(clause, fc.record({ conjunction, clauses: fc.array(clause, { maxLength: 3 }) })), {
        minLength: 1,
        maxLength: 3,
      }),
    }),
  },
);
const aggregation = fc.oneof(
  fc.constant({ func: "count" as const }),
  fc.record({
    func: fc.constantFrom("sum" as const, "max" as const, "min" as const, "avg" as const),
    property: fc.constantFrom("n", "timestamp"),
  }),
  fc.record({ func: fc.constant("unique" as const), property: fc.constantFrom("k", "n", "metadata.flag") }),
);

/** A query starting a little before one of the events (so ranges hold events), per interval and zone. */
const queryAround = (instants: readonly Date[]) =>
  fc
    .record({
      interval: fc.constantFrom("hour" as const, "day" as const, "week" as const, "month" as const, "year" as const),
      timezone: fc.constantFrom(...ZONES),
      around: fc.constantFrom(...instants),
      before: fc.integer({ min: 0, max: 100 }),
      span: fc.integer({ min: 1, max: 100 }),
      customerFunction: fc.constantFrom(null, "count", "sum", "max", "min", "avg", "unique"),
      customers: fc.constantFrom(null, ["c1"], ["c0", "c2"]),
    })
    .map(({ span, around, before, ...rest }) => {
      // The range spans up to the interval's limit, and holds the chosen event somewhere inside.
      const length = (span / 100) * MAX_SPAN_DAYS[rest.interval] * 86_400_000;
      const start = new Date(around.getTime() - (before / 100) * length);
      return { ...rest, start, end: new Date(start.getTime() + length) };
    });
type Query = ReturnType<typeof queryAround> extends fc.Arbitrary<infer Q> ? Q : never;

const STEP = { hour: "1 hour", day: "1 day", week: "1 week", month: "1 month", year: "1 year" };

/** The same aggregation, straight from the raw events: one plain GROUP BY, no pre-aggregate. */
async function direct(organizationId: string, meterFilter: MeterFilter, agg: { func: string; property?: string }, q: Query) {
  const iv = sql.lit(q.interval);
  const property = (agg.property ?? "").replace(/^metadata\./, "");
  const numeric =
    property === "timestamp"
      ? sql`extract(epoch FROM e."timestamp")::numeric`
      : sql`CASE WHEN jsonb_typeof(e.metadata -> ${property}) = 'number' THEN (e.metadata -> ${property})::numeric END`;
  const quantity = {
    count: sql`count(*)`,
    sum: sql`coalesce(sum(v), 0)`,
    max: sql`coalesce(max(v), 0)`,
    min: sql`coalesce(min(v), 0)`,
    avg: sql`coalesce(avg(v), 0)`,
    unique: sql`count(DISTINCT j)`,
  }[agg.func]!;
  const across = {
    count: sql`count(*)`,
    sum: sql`coalesce(sum(q), 0)`,
    max: sql`coalesce(max(q), 0)`,
    min: sql`coalesce(min(q), 0)`,
    avg: sql`coalesce(avg(q), 0)`,
    unique: sql`count(DISTINCT q)`,
  };
  const perBucket =
    q.customerFunction === null
      ? sql`SELECT k, ${quantity} AS quantity FROM matched GROUP BY k UNION ALL SELECT NULL, ${quantity} FROM matched`
      : sql`SELECT k, ${across[q.customerFunction]} AS quantity FROM (
          SELECT k, customer, ${quantity} AS q FROM matched GROUP BY k, customer
          UNION ALL SELECT NULL, customer, ${quantity} FROM matched GROUP BY customer) c GROUP BY k`;
  const customerFilter = q.customers === null ? sql`true` : sql`customer_external = ANY(${q.customers}::text[])`;
  const { rows } = await sql<{ timestamp: Date; quantity: number; total: number }>`WITH
    points AS (SELECT p, date_trunc(${iv}, p) AS k FROM generate_series(${q.start}::timestamptz AT TIME ZONE ${q.timezone}, ${q.end}::timestamptz AT TIME ZONE ${q.timezone}, ${STEP[q.interval]}::interval) p),
    events_of AS (
      SELECT e.*, coalesce(c.id::text, 'external:' || e.external_customer_id) AS customer, coalesce(c.external_id, e.external_customer_id) AS customer_external
      FROM events e LEFT JOIN customers c ON c.organization_id = e.organization_id AND c.deleted_at IS NULL
        AND (c.id = e.customer_id OR (e.customer_id IS NULL AND c.external_id = e.external_customer_id))
      WHERE e.organization_id = ${organizationId}
    ),
    matched AS (
      SELECT date_trunc(${iv}, e."timestamp" AT TIME ZONE ${q.timezone}) AS k, e.customer, ${numeric} AS v,
        ${property === "timestamp" ? sql`to_jsonb(extract(epoch FROM e."timestamp"))` : sql`e.metadata -> ${property}`} AS j
      FROM events_of e
      WHERE ${compileFilter(meterFilter, "e")} AND ${customerFilter}
        AND date_trunc(${iv}, e."timestamp" AT TIME ZONE ${q.timezone}) IN (SELECT k FROM points)
        ${agg.func === "unique" ? sql`AND e.metadata -> ${property} IS NOT NULL` : sql``}
    ),
    results AS (${perBucket})
    SELECT p.p AT TIME ZONE ${q.timezone} AS "timestamp", coalesce(r.quantity, 0)::float8 AS quantity,
      coalesce((SELECT quantity FROM results WHERE k IS NULL), 0)::float8 AS total
    FROM points p LEFT JOIN results r ON r.k = p.k ORDER BY p.p`.execute(ctx.deps.db);
  return { quantities: rows.map((r) => ({ timestamp: r.timestamp.toISOString(), quantity: r.quantity })), total: rows[0]?.total ?? 0 };
}

async function answered(meterId: string, token: string, q: Query) {
  const search = new URLSearchParams({
    start_timestamp: q.start.toISOString(),
    end_timestamp: q.end.toISOString(),
    interval: q.interval,
    timezone: q.timezone,
  });
  if (q.customerFunction !== null) search.set("customer_aggregation_function", q.customerFunction);
  for (const id of q.customers ?? []) search.append("external_customer_id", id);
  const response = await ctx.request({ method: "GET", url: `/v1/meters/${meterId}/quantities?${search.toString()}`, token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

it("answers every aggregation from the pre-aggregates exactly as from the raw events", { timeout: 300_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc
        .array(event, { minLength: 1, maxLength: 60 })
        .chain((events) =>
          fc.tuple(fc.constant(events), fc.array(queryAround(events.map((e) => e.timestamp)), { minLength: 2, maxLength: 5 })),
        ),
      filter,
      aggregation,
      async ([events, queries], meterFilter, agg) => {
        const organization = await createOrganization(ctx.deps);
        const token = await createOrganizationToken(ctx.deps, organization.id, ["meters:write", "events:write"]);
        const customer = await createCustomer(ctx.deps, organization.id, { external_id: "c1" });
        const createMeter = async () => {
          const response = await ctx.request({
            method: "POST",
            url: "/v1/meters/",
            token,
            payload: { name: "Property", filter: meterFilter, aggregation: agg },
          });
          expect(response.statusCode, response.body).toBe(201);
          return response.json<{ id: string }>().id;
        };
        const early = await createMeter();
        const toIngest: IngestEvent[] = events.map((e) => ({
          name: e.name,
          ...(e.customer === "id" ? { customer_id: customer.id } : { external_customer_id: e.customer }),
          timestamp: e.timestamp.toISOString(),
          metadata: e.metadata,
        }));
        const [third, twoThirds] = [Math.ceil(toIngest.length / 3), Math.ceil((2 * toIngest.length) / 3)];
        // The reads add all three: the first third aggregated and compacted into the buckets, the
        // second aggregated into deltas (in steps of a few events), the last ingested only (raw).
        await ingest(ctx, token, toIngest.slice(0, third));
        await aggregateMeters(ctx);
        await ingest(ctx, token, toIngest.slice(third, twoThirds));
        await ctx.services.meters.aggregateAllIngested(3);
        await ingest(ctx, token, toIngest.slice(twoThirds));
        const late = await createMeter();
        for (const q of queries) {
          const expected = await direct(organization.id, meterFilter, agg, q);
          expect(await answered(early, token, q), JSON.stringify(q)).toEqual(expected);
          expect(await answered(late, token, q), `pending back-fill ${JSON.stringify(q)}`).toEqual(expected);
        }
        await runBackfills(ctx);
        for (const q of queries)
          expect(await answered(late, token, q), `back-filled ${JSON.stringify(q)}`).toEqual(
            await direct(organization.id, meterFilter, agg, q),
          );
        await aggregateMeters(ctx);
        for (const q of queries) {
          const expected = await direct(organization.id, meterFilter, agg, q);
          expect(await answered(early, token, q), `aggregated and compacted ${JSON.stringify(q)}`).toEqual(expected);
          expect(await answered(late, token, q), `back-filled, aggregated and compacted ${JSON.stringify(q)}`).toEqual(expected);
        }
      },
    ),
    { seed: 20261124, numRuns: 40, endOnFailure: true },
  );
});
