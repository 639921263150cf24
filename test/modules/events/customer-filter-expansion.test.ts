import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";

// `customer_id` and `external_customer_id` on the event reads (list, names, event types) each match
// the events naming the customer either way: by its id or by its external id (the hosted service
// expands each filter to the other identifier). Another organization's events under the same
// external id, and another customer's, stay out.

let ctx: TestContext;
let readToken: string;
let grace: { id: string };
const base = new Date("2026-03-01T12:00:00.000Z");
const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000).toISOString();

beforeAll(async () => {
  ctx = await createTestContext();
  const orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  readToken = await createOrganizationToken(ctx.deps, orgId, ["events:read"]);
  grace = await createCustomer(ctx.deps, orgId, { external_id: "grace-ext" });
  const other = await createCustomer(ctx.deps, orgId, { external_id: "other-ext" });
  const ingest = async (organizationId: string, events: Record<string, unknown>[]) => {
    const token = await createOrganizationToken(ctx.deps, organizationId, ["events:write"]);
    const response = await ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });
    expect(response.json()).toEqual({ inserted: events.length, duplicates: 0 });
  };
  await ingest(orgId, [
    { name: "by.id", customer_id: grace.id, timestamp: at(0) },
    { name: "by.external", external_customer_id: "grace-ext", timestamp: at(1) },
    { name: "by.id", customer_id: other.id, timestamp: at(2) },
    { name: "by.external", external_customer_id: "other-ext", timestamp: at(3) },
  ]);
  await ingest(otherOrgId, [{ name: "foreign", external_customer_id: "grace-ext", timestamp: at(4) }]);
});
afterAll(() => ctx.close());

const get = async <T>(url: string): Promise<T> => {
  const response = await ctx.request({ method: "GET", url, token: readToken });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
};
type Items<T> = { items: T[] };

describe("customer filters on the event reads", () => {
  const byId = () => `customer_id=${grace.id}`;
  const byExternal = "external_customer_id=grace-ext";

  it("GET /v1/events/ finds the customer's events named by id and by external id, with either filter", async () => {
    for (const filter of [byId(), byExternal]) {
      const body = await get<Items<{ name: string; timestamp: string }>>(`/v1/events/?${filter}&sorting=timestamp`);
      expect(body.items.map((event) => [event.name, event.timestamp])).toEqual([
        ["by.id", at(0)],
        ["by.external", at(1)],
      ]);
    }
  });

  it("GET /v1/events/names counts both ways of naming the customer", async () => {
    for (const filter of [byId(), byExternal]) {
      const body = await get<Items<{ name: string; occurrences: number }>>(`/v1/events/names?${filter}&sorting=name`);
      expect(body.items.map((item) => [item.name, item.occurrences])).toEqual([
        ["by.external", 1],
        ["by.id", 1],
      ]);
    }
  });

  it("GET /v1/event-types/ counts both ways of naming the customer", async () => {
    for (const filter of [byId(), byExternal]) {
      const body = await get<Items<{ name: string; occurrences: number }>>(`/v1/event-types/?${filter}&sorting=name`);
      expect(body.items.map((item) => [item.name, item.occurrences])).toEqual([
        ["by.external", 1],
        ["by.id", 1],
      ]);
    }
  });

  it("combines the two filters as both conditions, each expanded", async () => {
    const same = await get<Items<{ name: string }>>(`/v1/events/?${byId()}&${byExternal}`);
    expect(same.items).toHaveLength(2);
    const crossed = await get<Items<{ name: string }>>(`/v1/events/?${byId()}&external_customer_id=other-ext`);
    expect(crossed.items).toEqual([]);
  });
});
