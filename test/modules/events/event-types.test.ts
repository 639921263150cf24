import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let readToken: string;
let writeToken: string;
let otherWriteToken: string;
let noScopeToken: string;
let ada: { id: string };
const base = new Date("2026-03-01T12:00:00.000Z");
const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000).toISOString();

interface Item {
  id: string | null;
  name: string;
  label: string;
  source: string;
  occurrences: number;
  organization_id: string;
}
interface TypesBody {
  items: Item[];
  pagination: { total_count: number; max_page: number };
}

async function ingest(token: string, events: Record<string, unknown>[]) {
  const response = await ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });
  expect(response.json()).toEqual({ inserted: events.length, duplicates: 0 });
}

/** Three user names in one organization (one a child event), a system event, and one name in another organization. */
beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  readToken = await createOrganizationToken(ctx.deps, orgId, ["events:read"]);
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["events:write"]);
  otherWriteToken = await createOrganizationToken(ctx.deps, otherOrgId, ["events:write"]);
  noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]);
  ada = await createCustomer(ctx.deps, orgId);
  await ingest(writeToken, [
    { name: "api.call", customer_id: ada.id, timestamp: at(0), external_id: "root-1" },
    { name: "api.call", customer_id: ada.id, timestamp: at(1) },
    { name: "api.call", customer_id: ada.id, timestamp: at(2) },
    { name: "export", external_customer_id: "ext-1", timestamp: at(3) },
    { name: "tool.step", external_customer_id: "ext-1", timestamp: at(4), parent_id: "root-1" },
  ]);
  await ingest(otherWriteToken, [{ name: "api.call", external_customer_id: "ext-1", timestamp: at(9) }]);
  await ctx.deps.db
    .insertInto("events")
    .values({ organization_id: orgId, source: "system", name: "meter.credited", timestamp: new Date(at(6)), metadata: "{}" })
    .execute();
});
afterAll(() => ctx.close());

const list = async (query = "", token: string = readToken): Promise<TypesBody> => {
  const response = await ctx.request({ method: "GET", url: `/v1/event-types/${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("event-types:list", 200, response.json());
  return response.json<TypesBody>();
};
const names = (body: TypesBody) => body.items.map((item) => item.name);
const typeId = async (organizationId: string, name: string) =>
  (
    await ctx.deps.db
      .selectFrom("event_types")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("name", "=", name)
      .executeTakeFirstOrThrow()
  ).id;

describe("GET /v1/event-types/", () => {
  it("lists each event type with its statistics, last seen first; a system type has no id", async () => {
    const body = await list();
    expect(body.pagination).toEqual({ total_count: 4, max_page: 1 });
    expect(body.items[0]).toEqual({
      id: null,
      created_at: null,
      modified_at: null,
      name: "meter.credited",
      label: "meter.credited",
      label_property_selector: null,
      organization_id: orgId,
      source: "system",
      occurrences: 1,
      first_seen: at(6),
      last_seen: at(6),
    });
    expect(body.items[3]).toEqual({
      id: await typeId(orgId, "api.call"),
      created_at: expect.any(String),
      modified_at: null,
      name: "api.call",
      label: "api.call",
      label_property_selector: null,
      organization_id: orgId,
      source: "user",
      occurrences: 3,
      first_seen: at(0),
      last_seen: at(2),
    });
    expect(names(body)).toEqual(["meter.credited", "tool.step", "export", "api.call"]);
  });

  it("creates one type per organization and name at first ingest, never twice", async () => {
    await ingest(otherWriteToken, [{ name: "api.call", external_customer_id: "ext-1", timestamp: at(10) }]);
    const rows = await ctx.deps.db.selectFrom("event_types").select(["organization_id", "name"]).orderBy("name").execute();
    expect(rows.filter((row) => row.organization_id === orgId).map((row) => row.name)).toEqual(["api.call", "export", "tool.step"]);
    expect(rows.filter((row) => row.organization_id === otherOrgId).map((row) => row.name)).toEqual(["api.call"]);
  });

  it("creates a new name's type in a batch retried for a known external id; a refused batch creates none", async () => {
    const organizationId = (await createOrganization(ctx.deps)).id;
    const token = await createOrganizationToken(ctx.deps, organizationId, ["events:write"]);
    const post = (events: Record<string, unknown>[]) =>
      ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });
    const event = (name: string, externalId?: string) => ({
      name,
      external_customer_id: "ext-9",
      timestamp: at(11),
      external_id: externalId,
    });
    expect((await post([event("first.name", "dup-1")])).json()).toEqual({ inserted: 1, duplicates: 0 });
    expect((await post([event("late.name", "dup-1"), event("late.name")])).json()).toEqual({ inserted: 1, duplicates: 1 });
    expect((await post([event("refused.name"), { ...event("refused.name"), timestamp: "2999-01-01T00:00:00Z" }])).statusCode).toBe(422);
    expect((await post([event("late.name"), event("first.name")])).json()).toEqual({ inserted: 2, duplicates: 0 });
    const stored = await ctx.deps.db
      .selectFrom("event_types")
      .select("name")
      .where("organization_id", "=", organizationId)
      .orderBy("name")
      .execute();
    expect(stored.map((row) => row.name)).toEqual(["first.name", "late.name"]);
  });

  it("filters by source, customer, root events, parent and query on name or label", async () => {
    expect(names(await list("?source=system"))).toEqual(["meter.credited"]);
    expect(names(await list(`?customer_id=${ada.id}`))).toEqual(["api.call"]);
    expect(names(await list("?external_customer_id=ext-1&sorting=name"))).toEqual(["export", "tool.step"]);
    expect(names(await list("?root_events=true&sorting=name"))).toEqual(["api.call", "export", "meter.credited"]);
    const parent = await ctx.deps.db.selectFrom("events").select("id").where("external_id", "=", "root-1").executeTakeFirstOrThrow();
    expect(names(await list(`?parent_id=${parent.id}`))).toEqual(["tool.step"]);
    expect(names(await list("?query=API"))).toEqual(["api.call"]);
  });

  it("sorts by any key, either way, and pages without repeats", async () => {
    expect(names(await list("?sorting=-occurrences&sorting=name"))).toEqual(["api.call", "export", "meter.credited", "tool.step"]);
    expect(names(await list("?sorting=first_seen"))).toEqual(["api.call", "export", "tool.step", "meter.credited"]);
    expect(names(await list("?sorting=-name"))).toEqual(["tool.step", "meter.credited", "export", "api.call"]);
    const pages = [await list("?sorting=label&limit=3&page=1"), await list("?sorting=label&limit=3&page=2")];
    expect(pages[0]!.pagination).toEqual({ total_count: 4, max_page: 2 });
    expect(pages.flatMap(names)).toEqual(["api.call", "export", "meter.credited", "tool.step"]);
  });

  it("shows the owner every organization's types, an organization token only its own", async () => {
    expect((await list("?query=api.call", ctx.ownerToken)).items.map((item) => item.organization_id).sort()).toEqual(
      [orgId, otherOrgId].sort(),
    );
    expect((await list(`?organization_id=${otherOrgId}`)).items).toEqual([]);
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "a missing token", request: () => ({ method: "GET", url: "/v1/event-types/", token: null }), status: 401 },
      { name: "an unknown token", request: () => ({ method: "GET", url: "/v1/event-types/", token: "polar_oat_nope" }), status: 401 },
      {
        name: "a token without events scopes",
        request: () => ({ method: "GET", url: "/v1/event-types/", token: noScopeToken }),
        status: 403,
      },
      {
        name: "an unknown sort key",
        request: () => ({ method: "GET", url: "/v1/event-types/?sorting=timestamp", token: readToken }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "a non-UUID organization_id",
        request: () => ({ method: "GET", url: "/v1/event-types/?organization_id=nope", token: readToken }),
        status: 422,
        loc: ["query", "organization_id", 0],
      },
      {
        name: "an unknown source",
        request: () => ({ method: "GET", url: "/v1/event-types/?source=robot", token: readToken }),
        status: 422,
        loc: ["query", "source"],
      },
      {
        name: "a non-boolean root_events",
        request: () => ({ method: "GET", url: "/v1/event-types/?root_events=maybe", token: readToken }),
        status: 422,
        loc: ["query", "root_events"],
      },
      {
        name: "a zero limit",
        request: () => ({ method: "GET", url: "/v1/event-types/?limit=0", token: readToken }),
        status: 422,
        loc: ["query", "limit"],
      },
    ],
  );
});

describe("PATCH /v1/event-types/{id}", () => {
  const patch = (id: string, payload: unknown, token: string | null = writeToken) =>
    ctx.request({ method: "PATCH", url: `/v1/event-types/${id}`, token, payload: payload as object });

  it("sets the trimmed label and selector, shown in the list; a blank selector clears it", async () => {
    const id = await typeId(orgId, "export");
    ctx.clock.advance(1000);
    const response = await patch(id, { label: "  Data export ", label_property_selector: " metadata.format " });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("event-types:update", 200, response.json());
    expect(response.json()).toEqual({
      id,
      created_at: expect.any(String),
      modified_at: ctx.clock.now().toISOString(),
      name: "export",
      label: "Data export",
      label_property_selector: "metadata.format",
      organization_id: orgId,
    });
    expect((await list("?query=data")).items.map((item) => [item.name, item.label])).toEqual([["export", "Data export"]]);
    const cleared = await patch(id, { label: "Export", label_property_selector: "   " });
    expect(cleared.json()).toMatchObject({ label: "Export", label_property_selector: null });
    expect((await patch(id, { label: "Export" })).json()).toMatchObject({ label_property_selector: null });
  });

  describe("bad input", () => {
    let id: string;
    let otherId: string;
    beforeAll(async () => {
      id = await typeId(orgId, "api.call");
      otherId = await typeId(otherOrgId, "api.call");
    });
    const unchanged = async () => {
      const row = await ctx.deps.db
        .selectFrom("event_types")
        .select(["label", "modified_at"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ label: "api.call", modified_at: null });
    };
    badInputTable(
      () => ctx.request,
      [
        { name: "no body", request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: writeToken }), status: 422 },
        {
          name: "a missing label",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: writeToken, payload: {} }),
          status: 422,
          loc: ["body", "label"],
        },
        {
          name: "a label that is not a string",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: writeToken, payload: { label: 5 } }),
          status: 422,
          loc: ["body", "label"],
        },
        {
          name: "an empty label",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: writeToken, payload: { label: "" } }),
          status: 422,
          loc: ["body", "label"],
        },
        {
          name: "a blank label",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: writeToken, payload: { label: "   " } }),
          status: 422,
          loc: ["body", "label"],
        },
        {
          name: "a label over 128 characters",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: writeToken, payload: { label: "x".repeat(129) } }),
          status: 422,
          loc: ["body", "label"],
        },
        {
          name: "a selector over 256 characters",
          request: () => ({
            method: "PATCH",
            url: `/v1/event-types/${id}`,
            token: writeToken,
            payload: { label: "A", label_property_selector: "x".repeat(257) },
          }),
          status: 422,
          loc: ["body", "label_property_selector"],
        },
        {
          name: "a non-UUID id",
          request: () => ({ method: "PATCH", url: "/v1/event-types/nope", token: writeToken, payload: { label: "A" } }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown id",
          request: () => ({
            method: "PATCH",
            url: "/v1/event-types/3f2b1c4d-1111-4222-8333-123456789abc",
            token: writeToken,
            payload: { label: "A" },
          }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's type",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${otherId}`, token: writeToken, payload: { label: "A" } }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a missing token",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: null, payload: { label: "A" } }),
          status: 401,
        },
        {
          name: "a read-only token",
          request: () => ({ method: "PATCH", url: `/v1/event-types/${id}`, token: readToken, payload: { label: "A" } }),
          status: 403,
        },
      ],
      unchanged,
    );
  });
});
