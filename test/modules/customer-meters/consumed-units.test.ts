import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumedUnits, consumedUnitsExact } from "../../../src/modules/meters/meter-consumption.repository.ts";
import { findMeter } from "../../../src/modules/meters/meters.repository.ts";
import type { TestContext } from "../../helpers/context.ts";
import { openOrganizationContext } from "../../helpers/factories.ts";
import { aggregateMeters, ingest, runBackfills } from "../meters/meters-helpers.ts";

// A customer's consumed units in a window, from the buckets plus the raw events of the hours its
// start and end cut (and, while a back-fill is pending, the raw events before the cut), equal the
// same aggregation computed directly over the raw events, for every function and many starts.

let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ({
    ctx,
    tokens: [token],
  } = await openOrganizationContext(["meters:write", "events:write"]));
});
afterAll(() => ctx.close());

const FUNCTIONS = [
  { func: "count" },
  { func: "sum", property: "tokens" },
  { func: "max", property: "tokens" },
  { func: "min", property: "tokens" },
  { func: "avg", property: "tokens" },
  { func: "unique", property: "model" },
] as const;

interface Sent {
  customer: string;
  timestamp: Date;
  tokens: number | null;
  model: string;
  name: string;
}

function direct(events: readonly Sent[], func: string, since: Date | null, until: Date | null): number {
  const rows = events.filter(
    (e) =>
      e.customer === "alice" && e.name === "llm" && (since === null || e.timestamp >= since) && (until === null || e.timestamp < until),
  );
  const numbers = rows.flatMap((e) => (e.tokens === null ? [] : [e.tokens]));
  switch (func) {
    case "count":
      return rows.length;
    case "sum":
      return numbers.reduce((a, b) => a + b, 0);
    case "max":
      return numbers.length ? Math.max(...numbers) : 0;
    case "min":
      return numbers.length ? Math.min(...numbers) : 0;
    case "avg":
      return numbers.length ? numbers.reduce((a, b) => a + b, 0) / numbers.length : 0;
    default:
      return new Set(rows.map((e) => e.model)).size;
  }
}

describe("consumed units from the pre-aggregates", () => {
  it("equal the raw aggregation for every function, window start and end, pending back-fill, unaggregated events and after both", async () => {
    ctx.clock.set(new Date("2027-03-10T00:00:00.000Z"));
    // A deterministic spread of events over two days, several per hour, some minutes apart around hour edges.
    const events: Sent[] = Array.from({ length: 240 }, (_, i) => ({
      customer: i % 3 === 0 ? "bob" : "alice",
      timestamp: new Date(Date.UTC(2027, 2, 8, 0, 0, 0) + i * 719_000),
      tokens: i % 7 === 0 ? null : (i * 37) % 101,
      model: `m${i % 5}`,
      name: i % 11 === 0 ? "other" : "llm",
    }));
    const send = (batch: Sent[]) =>
      ingest(
        ctx,
        token,
        batch.map((e) => ({
          name: e.name,
          external_customer_id: e.customer,
          timestamp: e.timestamp.toISOString(),
          metadata: { model: e.model, ...(e.tokens === null ? {} : { tokens: e.tokens }) },
        })),
      );
    // Half the events before the meters exist (their back-fill pending), half after.
    await send(events.slice(0, 120));
    const meters: { id: string; func: string }[] = [];
    for (const aggregation of FUNCTIONS) {
      const response = await ctx.request({
        method: "POST",
        url: "/v1/meters/",
        token,
        payload: {
          name: `Meter ${aggregation.func}`,
          filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "llm" }] },
          aggregation,
        },
      });
      expect(response.statusCode, response.body).toBe(201);
      meters.push({ id: response.json<{ id: string }>().id, func: aggregation.func });
    }
    await send(events.slice(120));

    const starts: (Date | null)[] = [
      null,
      ...[0, 1, 37, 60, 61, 600, 1439, 1500, 2880, 3000].map((m) => new Date(Date.UTC(2027, 2, 8) + m * 60_000 + 13_000)),
    ];
    starts.push(new Date(Date.UTC(2027, 2, 8, 5)), new Date(Date.UTC(2027, 2, 9, 12)));
    // Ends: none, on an hour edge, inside the hour of a start (a window within one hour), across hours and days.
    const ends: (Date | null)[] = [null, ...[62, 600, 1501, 2100].map((m) => new Date(Date.UTC(2027, 2, 8) + m * 60_000 + 29_000))];
    ends.push(new Date(Date.UTC(2027, 2, 9, 12)));
    const rows = () => Promise.all(meters.map(async ({ id }) => (await findMeter(ctx.deps.db, id, null))!));
    // `read`: the meter rows as a caller read them, possibly before the job moved on since.
    const check = async (read: Awaited<ReturnType<typeof rows>>) => {
      for (const [index, { func }] of meters.entries()) {
        const meter = read[index]!;
        for (const since of starts) {
          for (const until of ends.filter((end) => end === null || since === null || end > since)) {
            const window = { since, until };
            const label = `${func} from ${since?.toISOString() ?? "always"} to ${until?.toISOString() ?? "now"}`;
            const expected = direct(events, func, since, until);
            expect(await consumedUnits(ctx.deps.db, meter, ["e:alice"], window), label).toBeCloseTo(expected, 9);
            expect(Number(await consumedUnitsExact(ctx.deps.db, meter, ["e:alice"], window)), label).toBeCloseTo(expected, 9);
          }
        }
      }
    };
    const pendingBackfill = await rows();
    await check(pendingBackfill);
    expect(await runBackfills(ctx)).toBeGreaterThan(0);
    const beforeAggregation = await rows();
    await check(beforeAggregation);
    await aggregateMeters(ctx);
    expect((await rows()).map((meter) => meter.aggregated_until > beforeAggregation[0]!.aggregated_until)).toEqual(meters.map(() => true));
    await check(await rows());
    // Rows read before the back-fill or the aggregation: the statement reads where the buckets end itself.
    await check(beforeAggregation);
    await check(pendingBackfill);
  });
});
