import fc from "fast-check";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileAcceptanceCheck } from "../../../src/http/acceptance-check.ts";
import { compileBodyValidator } from "../../../src/http/validation.ts";
import { EventCreateCustomer, EventCreateExternalCustomer } from "../../../src/modules/events/events.schemas.ts";
import type { TestContext } from "../../helpers/context.ts";
import { arbitraryOf, mutate, mutationChoice, RawJson, toJsonText, type JsonSchema } from "../../helpers/schema-arbitraries.ts";
import { createIngestFixture, postEvents, uniqueId } from "./ingest-fixture.ts";

// The ingest body's acceptance check (TypeBox's compiled check in front of Ajv, events.ingest-validation.ts)
// must accept no event Ajv refuses, and Ajv must leave an accepted event as it was: then the fast
// path stores what the Ajv path stores, and every refusal is still Ajv's 422.

const SHAPES = [EventCreateCustomer, EventCreateExternalCustomer].map((schema) => ({
  title: String(schema.title),
  schema,
  accepts: compileAcceptanceCheck(schema),
  validate: compileBodyValidator(schema),
}));

/** Values where TypeBox and Ajv could part: UTF-16 units against code points, infinities, lone surrogates, the cost pattern. */
const EDGES: unknown[] = [
  "😀".repeat(64),
  "😀".repeat(65),
  "😀".repeat(129),
  "x".repeat(128),
  "x".repeat(129),
  "😀".repeat(250),
  "😀".repeat(251),
  "😀".repeat(501),
  "lone \ud800 surrogate",
  "",
  "+.",
  "-",
  "1😀",
  "😀",
  "usd😀",
  "12345.123456789012",
  "123456.1",
  new RawJson("1e400"),
  new RawJson("-1e400"),
  new RawJson("1.0"),
  new RawJson("9007199254740993"),
  1.5,
  -0,
];

/** The value as the route sees it: JSON text parsed (so `1e400` arrives as Infinity). */
const asParsed = (value: unknown): unknown => JSON.parse(toJsonText(value));

describe("the ingest body's acceptance check", () => {
  for (const shape of SHAPES) {
    const valid = arbitraryOf(shape.schema as unknown as JsonSchema, () => undefined);

    it(`${shape.title}: accepts the valid events generated from the schema, as Ajv does`, () => {
      fc.assert(
        fc.property(valid, (event) => {
          const parsed = asParsed(event);
          expect(shape.validate(structuredClone(parsed))).toBe(true);
          expect(shape.accepts(parsed)).toBe(true);
        }),
        { numRuns: 300 },
      );
    });

    it(`${shape.title}: accepts only what Ajv accepts, and Ajv leaves such an event unchanged`, () => {
      const edge = fc.nat({ max: EDGES.length - 1 }).map((i) => EDGES[i]);
      const changed = fc.oneof(
        fc.tuple(valid, mutationChoice).map(([event, choice]) => mutate(event, choice)),
        // An edge value at any place of a valid event (mutate's hostile values, replaced by the edges).
        fc.tuple(valid, mutationChoice, edge).map(([event, choice, value]) => replaceAt(event, choice.place, value)),
      );
      let acceptedByBoth = 0;
      fc.assert(
        fc.property(changed, (candidate) => {
          const parsed = asParsed(candidate);
          if (!shape.accepts(parsed)) return;
          const seenByAjv = structuredClone(parsed);
          expect(shape.validate(seenByAjv), JSON.stringify(shape.validate.errors)).toBe(true);
          expect(seenByAjv).toEqual(parsed);
          acceptedByBoth += 1;
        }),
        { numRuns: 1000 },
      );
      // The property says something only if some changed events pass (a metadata key, an edge string).
      expect(acceptedByBoth).toBeGreaterThan(0);
    });
  }

  it("refuses a schema whose keywords TypeBox and Ajv would not read alike", () => {
    expect(() => compileAcceptanceCheck(Type.Object({ n: Type.Integer({ default: 0 }) }))).toThrow(/"default"/);
    expect(() => compileAcceptanceCheck(Type.Record(Type.String({ maxLength: 4 }), Type.String()))).toThrow(/patternProperties/);
    expect(() => compileAcceptanceCheck(Type.String({ minLength: 2 }))).toThrow(/minLength/);
    expect(() => compileAcceptanceCheck(Type.String({ format: "email" }))).toThrow(/format unknown/);
  });
});

/** The event with `value` at one of its places (`place` modulo their count), or the value itself. */
function replaceAt(event: unknown, place: number, value: unknown): unknown {
  const copy = structuredClone(event) as Record<string, unknown>;
  const places: { container: Record<string, unknown>; key: string }[] = [];
  const visit = (container: Record<string, unknown>) => {
    for (const key of Object.keys(container)) {
      places.push({ container, key });
      const inner = container[key];
      if (typeof inner === "object" && inner !== null && !Array.isArray(inner)) visit(inner as Record<string, unknown>);
    }
  };
  visit(copy);
  const target = places[place % (places.length + 1)];
  if (!target) return value;
  target.container[target.key] = value;
  return copy;
}

describe("POST /v1/events/ingest through the acceptance check and through Ajv", () => {
  let ctx: TestContext;
  let writeToken: string;
  let customerId: string;

  beforeAll(async () => {
    ({ ctx, writeToken, customerId } = await createIngestFixture());
  });
  afterAll(() => ctx.close());

  const storedRows = async (externalIds: string[]) =>
    (
      await ctx.deps.db
        .selectFrom("events")
        .select([
          "external_id",
          "customer_id",
          "external_customer_id",
          "member_id",
          "external_member_id",
          "name",
          "timestamp",
          "parent_id",
          "metadata",
        ])
        .where("external_id", "in", externalIds)
        .execute()
    ).map(({ external_id, ...row }) => ({ position: Number(String(external_id).split(":")[1]), ...row }));

  it("stores the same rows for events the check passes as for the same events only Ajv passes", async () => {
    const past = new Date(ctx.clock.now().getTime() - 3_600_000).toISOString();
    const events = [
      { name: "api.call", customer_id: customerId, timestamp: past, metadata: { route: "/x", units: 3, ratio: 0.5, ok: true } },
      {
        name: "llm",
        customer_id: customerId,
        metadata: { _llm: { vendor: "v", model: "m", input_tokens: 10, output_tokens: 2, total_tokens: 12 } },
      },
      { name: "cost", customer_id: customerId, parent_id: "p-1", metadata: { _cost: { amount: 12.5, currency: "usd" }, note: "a\tb\\c" } },
      {
        name: "cost.text",
        customer_id: customerId,
        member_id: null,
        external_id: null,
        metadata: { _cost: { amount: "0.000000000001", currency: "usd" } },
      },
    ];
    const fast = uniqueId("fast");
    const ajv = uniqueId("ajv");
    // Carrying both customer keys sends an event down the Ajv path (both shapes validated, the
    // customer_id one kept, the other key dropped): the same stored row as without that key.
    const fastResponse = await postEvents(
      ctx,
      events.map((event, i) => ({ ...event, external_id: `${fast}:${i}` })),
      writeToken,
    );
    const ajvResponse = await postEvents(
      ctx,
      events.map((event, i) => ({ ...event, external_customer_id: "dropped", external_id: `${ajv}:${i}` })),
      writeToken,
    );
    expect(fastResponse.statusCode, fastResponse.body).toBe(200);
    expect(ajvResponse.statusCode, ajvResponse.body).toBe(200);
    const ids = (prefix: string) => events.map((_, i) => `${prefix}:${i}`);
    const byPosition = (rows: Awaited<ReturnType<typeof storedRows>>) => [...rows].sort((a, b) => a.position - b.position);
    const fastRows = byPosition(await storedRows(ids(fast)));
    expect(fastRows).toHaveLength(events.length);
    expect(fastRows).toEqual(byPosition(await storedRows(ids(ajv))));
  });

  it("stores an event the check misses but Ajv passes (a name of 100 code points in 200 UTF-16 units)", async () => {
    const id = uniqueId("astral");
    const response = await postEvents(ctx, [{ name: "😀".repeat(100), external_customer_id: "u", external_id: `${id}:0` }], writeToken);
    expect(response.statusCode, response.body).toBe(200);
    expect(await storedRows([`${id}:0`])).toMatchObject([{ name: "😀".repeat(100), external_customer_id: "u" }]);
  });

  it("answers Ajv's 422 for a bad event among events the check passes, at the places where the two could part", async () => {
    const good = (i: number) => ({ name: `ok-${i}`, external_customer_id: "u", external_id: uniqueId("good") });
    const infinite = `{"name":"inf","external_customer_id":"u","metadata":{"n":1e400}}`;
    const payload = `{"events":[${JSON.stringify(good(0))},${JSON.stringify({ name: "😀".repeat(129), external_customer_id: "u" })},${infinite},${JSON.stringify(good(3))}]}`;
    const response = await ctx.request({
      method: "POST",
      url: "/v1/events/ingest",
      token: writeToken,
      headers: { "content-type": "application/json" },
      payload,
    });
    expect(response.statusCode).toBe(422);
    const missing = (index: number, input: unknown) => ({
      loc: ["body", "events", index, "EventCreateCustomer", "customer_id"],
      msg: "Field required",
      type: "missing",
      input,
    });
    const tooLong = (title: string) => ({
      loc: ["body", "events", 1, title, "name"],
      msg: "String should have at most 128 characters",
      type: "string_too_long",
      input: "😀".repeat(129),
      ctx: { max_length: 128 },
    });
    const notAValue = (title: string) =>
      (
        [
          ["string_type", "Input should be a valid string"],
          ["int_type", "Input should be a valid integer"],
          ["float_type", "Input should be a valid number"],
          ["bool_type", "Input should be a valid boolean"],
        ] as const
      ).map(([type, msg]) => ({ loc: ["body", "events", 2, title, "metadata", "n"], msg, type, input: null }));
    expect(response.json().detail).toEqual([
      missing(1, { name: "😀".repeat(129), external_customer_id: "u" }),
      tooLong("EventCreateCustomer"),
      tooLong("EventCreateExternalCustomer"),
      missing(2, { name: "inf", external_customer_id: "u", metadata: { n: null } }),
      ...notAValue("EventCreateCustomer"),
      ...notAValue("EventCreateExternalCustomer"),
    ]);
  });
});
