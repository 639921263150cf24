import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countRows as countTable } from "../../src/db/count-rows.ts";
import { badInputTable, type BadInputCase } from "../helpers/bad-inputs.ts";
import type { TestContext } from "../helpers/context.ts";
import { openOrganizationContext } from "../helpers/factories.ts";

/**
 * Bodies built to break the server rather than to be wrong: nesting far beyond any schema, arrays
 * of millions of tiny objects, megabyte keys, numbers JSON cannot hold. Each route answers the
 * documented 422 quickly and with a small body, and writes nothing.
 */
let ctx: TestContext;
let token: string;
let organizationId: string;

beforeAll(async () => {
  const opened = await openOrganizationContext(["events:write", "webhooks:write", "customers:write", "products:write"]);
  ctx = opened.ctx;
  token = opened.tokens[0];
  organizationId = opened.org.id;
});
afterAll(() => ctx.close());

const deepArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const deepObjects = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
/** About 7.5 MB, under the 10 MiB body limit. */
const tinyObjects = (count: number) => `[${"{},".repeat(count - 1)}{}]`;
const manyKeys = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":{}`).join(",")}}`;
const longKey = `{"${"k".repeat(1_000_000)}":1}`;

/** Where each route takes a free-form value: the hostile value is put there. */
const ROUTES = [
  // Event metadata takes any key and any number (docs/decisions.md): the value goes where only a string fits.
  {
    name: "POST /v1/events/ingest",
    url: "/v1/events/ingest",
    body: (v: string) => `{"events":[{"name":${v},"external_customer_id":"c"}]}`,
  },
  {
    name: "POST /v1/webhooks/endpoints",
    url: "/v1/webhooks/endpoints",
    body: (v: string) => `{"url":"https://example.com/hook","format":"raw","events":${v}}`,
  },
  {
    name: "POST /v1/customer-portal/license-keys/activate",
    url: "/v1/customer-portal/license-keys/activate",
    body: (v: string) => `{"key":"k","organization_id":"${organizationId}","label":"x","conditions":${v}}`,
  },
  { name: "POST /v1/customers/", url: "/v1/customers/", body: (v: string) => `{"email":"hostile@example.com","metadata":${v}}` },
  { name: "POST /v1/products/ (prices)", url: "/v1/products/", body: (v: string) => `{"name":"x","prices":${v}}` },
] as const;

/** Huge bodies cost seconds each: they have a test of their own per route rather than a row here. */
const HOSTILE_VALUES: { name: string; value: string }[] = [
  { name: "arrays nested 5,000 deep", value: deepArrays(5_000) },
  { name: "arrays nested 100,000 deep", value: deepArrays(100_000) },
  { name: "objects nested 5,000 deep", value: deepObjects(5_000) },
  { name: "objects nested 100,000 deep", value: deepObjects(100_000) },
  { name: "a key of 1,000,000 characters", value: longKey },
  { name: "a number beyond 2^53", value: "9007199254740993" },
  { name: "a number beyond double precision", value: "1e400" },
  { name: "a 40-digit integer", value: "-1234567890123456789012345678901234567890" },
];

/** What a hostile request may cost: a small answer, quickly. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Rows of every table these routes write. */
async function countRows(): Promise<number> {
  const db = ctx.database.db;
  const counts = await Promise.all([
    countTable(db.selectFrom("events").selectAll()),
    countTable(db.selectFrom("webhook_endpoints").selectAll()),
    countTable(db.selectFrom("customers").selectAll()),
    countTable(db.selectFrom("products").selectAll()),
  ]);
  return counts.reduce((sum, count) => sum + count, 0);
}

// These refusals run first and check that nothing at all was written; the later blocks write.
for (const route of ROUTES) {
  describe(route.name, () => {
    const cases: BadInputCase[] = HOSTILE_VALUES.map((hostile) => ({
      name: hostile.name,
      status: 422,
      request: () => ({
        method: "POST",
        url: route.url,
        token,
        headers: { "content-type": "application/json" },
        payload: route.body(hostile.value),
      }),
    }));
    badInputTable(
      () => ctx.request,
      cases,
      async () => expect(await countRows()).toBe(0),
    );

    it("answers deep nesting as json_invalid at the offending offset, before validation, in a small body", async () => {
      const payload = route.body(deepObjects(100_000));
      const response = await ctx.request({
        method: "POST",
        url: route.url,
        token,
        headers: { "content-type": "application/json" },
        payload,
      });
      expect(response.statusCode).toBe(422);
      const [entry, ...rest] = response.json<{ detail: { loc: unknown[]; type: string; ctx: { error: string } }[] }>().detail;
      expect(rest).toEqual([]);
      expect(entry!.type).toBe("json_invalid");
      expect(entry!.ctx.error).toBe("nesting deeper than 64 levels");
      const offset = entry!.loc[1] as number;
      // The 65th container opened: everything before it is 64 levels deep at most.
      expect(payload[offset]).toBe("{");
      expect(response.body.length).toBeLessThan(1024);
    });

    it("bounds the echoed input of huge bodies", async () => {
      for (const value of [tinyObjects(2_500_000), manyKeys(100_000), longKey]) {
        const response = await ctx.request({
          method: "POST",
          url: route.url,
          token,
          headers: { "content-type": "application/json" },
          payload: route.body(value),
        });
        expect(response.statusCode).toBe(422);
        expect(response.json<{ error: string }>().error).toBe("RequestValidationError");
        expect(response.body.length).toBeLessThan(MAX_RESPONSE_BYTES);
      }
      expect(await countRows()).toBe(0);
    });
  });
}

describe("numbers beyond 2^53 where numbers are accepted", () => {
  let serial = 0;
  const send = (url: string, payload: string) =>
    ctx.request({ method: "POST", url, token, headers: { "content-type": "application/json" }, payload });
  // A number JSON.parse can hold (rounded to the nearest double) is taken as such where the schema
  // allows it; one beyond double range (Infinity) is a 422, never stored.
  const probes = [
    {
      url: "/v1/events/ingest",
      body: (n: string) => `{"events":[{"name":"big","external_customer_id":"c","metadata":{"n":${n}}}]}`,
      bigInteger: 200,
    },
    { url: "/v1/customers/", body: (n: string) => `{"email":"big${(serial += 1)}@example.com","metadata":{"n":${n}}}`, bigInteger: 201 },
    {
      url: "/v1/products/",
      body: (n: string) =>
        `{"name":"big","recurring_interval":null,"prices":[{"amount_type":"fixed","price_currency":"usd","price_amount":${n}}]}`,
      bigInteger: 422,
    },
    {
      url: "/v1/customer-portal/license-keys/activate",
      body: (n: string) => `{"key":"k","organization_id":"${organizationId}","label":"x","conditions":{"n":${n}}}`,
      bigInteger: 404,
    },
  ] as const;
  for (const probe of probes) {
    it(`${probe.url}: beyond 2^53 is ${probe.bigInteger}, beyond double range 422`, async () => {
      for (const n of ["9007199254740993", "-1234567890123456789012345678901234567890"]) {
        const response = await send(probe.url, probe.body(n));
        expect(response.statusCode, `${n}: ${response.body}`).toBe(probe.bigInteger);
      }
      for (const n of ["1e400", "-1e400"]) {
        const response = await send(probe.url, probe.body(n));
        expect(response.statusCode, `${n}: ${response.body}`).toBe(422);
      }
    });
  }

  it("stores a big integer as the nearest double", async () => {
    const response = await send("/v1/customers/", `{"email":"nearest@example.com","metadata":{"n":9007199254740993}}`);
    expect(response.json<{ metadata: { n: number } }>().metadata.n).toBe(2 ** 53);
  });
});

describe("bodies inside the limits", () => {
  it("parses 64 levels of nesting, not 65, and counts brackets inside strings as text", async () => {
    // body, events and the event are three levels; the metadata object and those inside it the rest.
    const firstType = async (metadataDepth: number) => {
      const response = await ctx.request({
        method: "POST",
        url: "/v1/events/ingest",
        token,
        headers: { "content-type": "application/json" },
        payload: `{"events":[{"name":"x","external_customer_id":"c","metadata":${deepObjects(metadataDepth)}}]}`,
      });
      return response.json<{ detail: { type: string }[] }>().detail[0]!.type;
    };
    expect(await firstType(61)).not.toBe("json_invalid");
    expect(await firstType(62)).toBe("json_invalid");
    const brackets = "[[[[{{{{".repeat(100);
    const accepted = await ctx.request({
      method: "POST",
      url: "/v1/events/ingest",
      token,
      payload: { events: [{ name: "x", external_customer_id: "c", metadata: { text: brackets.slice(0, 500), quote: 'a "[" b' } }] },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
  });

  it("reports every error of an ordinary body, and the first only past 10,000 values", async () => {
    const few = await ctx.request({
      method: "POST",
      url: "/v1/webhooks/endpoints",
      token,
      payload: { url: "https://example.com/hook", format: "raw", events: [1, 2, 3] },
    });
    expect(few.json<{ detail: unknown[] }>().detail.length).toBeGreaterThanOrEqual(3);
    const many = await ctx.request({
      method: "POST",
      url: "/v1/webhooks/endpoints",
      token,
      payload: { url: "https://example.com/hook", format: "raw", events: Array.from({ length: 10_001 }, () => 1) },
    });
    expect(many.json<{ detail: unknown[] }>().detail).toHaveLength(1);
  });
});
