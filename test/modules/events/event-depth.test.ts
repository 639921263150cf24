import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let readToken: string;
let otherReadToken: string;
const ids = new Map<string, string>();
const base = new Date("2026-03-01T12:00:00.000Z");
const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000).toISOString();

interface ListBody {
  items: { id: string; name: string }[];
  pagination: { total_count: number; max_page: number };
}

/**
 * One organization's event tree, parents named both ways (external id and event id):
 *   root ─ child ─ grandchild ─ great-grandchild,   lone-root,
 *   waiting (its parent never arrived),   loop-a ⇄ loop-b (each names the other).
 * Another organization has a root with the same external id.
 */
beforeAll(async () => {
  ctx = await createTestContext();
  const org = await createOrganization(ctx.deps);
  const other = await createOrganization(ctx.deps);
  readToken = await createOrganizationToken(ctx.deps, org.id, ["events:read"]);
  otherReadToken = await createOrganizationToken(ctx.deps, other.id, ["events:read"]);
  const writeToken = await createOrganizationToken(ctx.deps, org.id, ["events:write"]);
  const otherWriteToken = await createOrganizationToken(ctx.deps, other.id, ["events:write"]);
  const ingest = async (token: string, events: Record<string, unknown>[]) => {
    const response = await ctx.request({ method: "POST", url: "/v1/events/ingest", token, payload: { events } });
    expect(response.json()).toEqual({ inserted: events.length, duplicates: 0 });
  };
  await ingest(writeToken, [
    { name: "root", external_customer_id: "c", external_id: "root", timestamp: at(0) },
    { name: "child", external_customer_id: "c", external_id: "child", parent_id: "root", timestamp: at(1) },
    { name: "lone-root", external_customer_id: "c", timestamp: at(2) },
    { name: "waiting", external_customer_id: "c", parent_id: "never-sent", timestamp: at(3) },
    { name: "loop-a", external_customer_id: "c", external_id: "loop-a", parent_id: "loop-b", timestamp: at(4) },
    { name: "loop-b", external_customer_id: "c", external_id: "loop-b", parent_id: "loop-a", timestamp: at(5) },
  ]);
  await ingest(otherWriteToken, [{ name: "foreign-root", external_customer_id: "c", external_id: "root", timestamp: at(0) }]);
  const read = async (name: string) => {
    const response = await ctx.request({ method: "GET", url: `/v1/events/?name=${name}`, token: readToken });
    ids.set(name, response.json<ListBody>().items[0]!.id);
  };
  await read("child");
  // The grandchild names its parent by event id, the great-grandchild by external id.
  await ingest(writeToken, [
    { name: "grandchild", external_customer_id: "c", external_id: "grandchild", parent_id: ids.get("child"), timestamp: at(6) },
  ]);
  await ingest(writeToken, [{ name: "great-grandchild", external_customer_id: "c", parent_id: "grandchild", timestamp: at(7) }]);
  for (const name of ["root", "lone-root", "grandchild", "great-grandchild", "loop-a"]) await read(name);
});
afterAll(() => ctx.close());

const list = async (query: string, token = readToken): Promise<ListBody> => {
  const response = await ctx.request({ method: "GET", url: `/v1/events/${query}`, token });
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("events:list", 200, response.json());
  return response.json<ListBody>();
};
const names = async (query: string, token = readToken) => {
  const body = await list(query, token);
  const found = body.items.map((e) => e.name);
  // Every page here fits in one response, so the count must agree with the items.
  expect(body.pagination.total_count).toBe(found.length);
  return found.sort();
};

describe("GET /v1/events/?depth=", () => {
  it("lists every event without depth, whatever its place in a tree", async () => {
    expect(await names("?limit=100")).toHaveLength(8);
  });

  it.each([
    [0, ["lone-root", "root"]],
    [1, ["child", "lone-root", "root"]],
    [2, ["child", "grandchild", "lone-root", "root"]],
    [3, ["child", "grandchild", "great-grandchild", "lone-root", "root"]],
    [5, ["child", "grandchild", "great-grandchild", "lone-root", "root"]],
  ])("depth %i: root events and their descendants down to that level, parents named by id or external id", async (depth, expected) => {
    expect(await names(`?depth=${depth}`)).toEqual(expected);
  });

  it("leaves out events whose parent never arrived and parent loops, which reach no root", async () => {
    expect(await names("?depth=5")).not.toEqual(expect.arrayContaining(["waiting"]));
    expect(await names("?depth=5")).not.toEqual(expect.arrayContaining(["loop-a"]));
  });

  it("pages a depth-limited list in timestamp order with its total", async () => {
    const first = await list("?depth=3&limit=2&sorting=timestamp");
    const second = await list("?depth=3&limit=2&sorting=timestamp&page=2");
    expect(first.pagination).toEqual({ total_count: 5, max_page: 3 });
    expect([...first.items, ...second.items].map((e) => e.name)).toEqual(["root", "child", "lone-root", "grandchild"]);
  });

  it("asks the roots to pass the other filters too", async () => {
    // The child's root is named "root": with a name filter of "child" alone, it has no root that passes.
    expect(await names("?depth=1&name=child")).toEqual([]);
    expect(await names("?depth=1&name=child&name=root")).toEqual(["child", "root"]);
    expect(await names("?depth=3&name=great-grandchild&name=root")).toEqual(["great-grandchild", "root"]);
  });

  it("keeps each organization to its own tree", async () => {
    expect(await names("?depth=0", otherReadToken)).toEqual(["foreign-root"]);
  });
});

describe("a parent named by an id that is also another event's external id, or in upper case", () => {
  let token: string;
  let x: string;
  let y: string;
  const read = async (query: string) => {
    const response = await ctx.request({ method: "GET", url: `/v1/events/${query}`, token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ items: { id: string; name: string; parent_id: string | null; child_count: number }[] }>();
  };
  const sortedNames = async (query: string) => (await read(query)).items.map((e) => e.name).sort();

  /** x and y are roots; y's external id is x's id; "claimed" names x's id, "upper" names it in capitals. */
  beforeAll(async () => {
    const org = await createOrganization(ctx.deps);
    token = await createOrganizationToken(ctx.deps, org.id, ["events:read"]);
    const writeToken = await createOrganizationToken(ctx.deps, org.id, ["events:write"]);
    const ingest = (events: Record<string, unknown>[]) =>
      ctx.request({ method: "POST", url: "/v1/events/ingest", token: writeToken, payload: { events } });
    await ingest([{ name: "x", external_customer_id: "c", timestamp: at(0) }]);
    x = (await read("?name=x")).items[0]!.id;
    await ingest([
      { name: "y", external_customer_id: "c", external_id: x, timestamp: at(1) },
      { name: "claimed", external_customer_id: "c", parent_id: x, timestamp: at(2) },
      { name: "upper", external_customer_id: "c", parent_id: x.toUpperCase(), timestamp: at(3) },
    ]);
    y = (await read("?name=y")).items[0]!.id;
  });

  it("resolves both children to the event with that id, and counts them there only", async () => {
    const byName = new Map((await read("?limit=100")).items.map((e) => [e.name, e]));
    expect(byName.get("claimed")!.parent_id).toBe(x);
    expect(byName.get("upper")!.parent_id).toBe(x);
    expect(byName.get("x")!.child_count).toBe(2);
    expect(byName.get("y")!.child_count).toBe(0);
  });

  it("lists them under that event, walking down or up, and never under the other", async () => {
    expect(await sortedNames(`?parent_id=${x}`)).toEqual(["claimed", "upper"]);
    expect(await sortedNames(`?parent_id=${x}&depth=2`)).toEqual(["claimed", "upper"]);
    expect(await sortedNames(`?parent_id=${y}`)).toEqual([]);
    expect(await sortedNames("?depth=0")).toEqual(["x", "y"]);
    expect(await sortedNames("?depth=1&name=x&name=claimed&name=upper")).toEqual(["claimed", "upper", "x"]);
  });
});

describe("GET /v1/events/?parent_id=&depth=", () => {
  it.each([
    ["root", 0, []],
    ["root", 1, ["child"]],
    ["root", 5, ["child", "grandchild", "great-grandchild"]],
    ["grandchild", 1, ["great-grandchild"]],
    ["lone-root", 3, []],
  ])("from %s down %i levels: its descendants, not the event itself", async (anchor, depth, expected) => {
    expect(await names(`?parent_id=${ids.get(anchor)}&depth=${depth}`)).toEqual(expected);
  });

  it("walks a parent loop once, leaving the starting event out", async () => {
    expect(await names(`?parent_id=${ids.get("loop-a")}&depth=5`)).toEqual(["loop-b"]);
  });

  it("applies the other filters to the descendants", async () => {
    expect(await names(`?parent_id=${ids.get("root")}&depth=5&name=grandchild`)).toEqual(["grandchild"]);
  });

  it("still lists only the direct children without depth", async () => {
    expect(await names(`?parent_id=${ids.get("root")}`)).toEqual(["child"]);
  });

  it("finds nothing from another organization's event", async () => {
    expect(await names(`?parent_id=${ids.get("root")}&depth=2`, otherReadToken)).toEqual([]);
  });

  describe("refuses", () => {
    const get = (query: string) => () => ({ method: "GET" as const, url: `/v1/events/${query}`, token: readToken });
    badInputTable(
      () => ctx.request,
      [
        { name: "a depth above 5", request: get("?depth=6"), status: 422, loc: ["query", "depth"] },
        { name: "a negative depth", request: get("?depth=-1"), status: 422, loc: ["query", "depth"] },
        { name: "a fractional depth", request: get("?depth=1.5"), status: 422, loc: ["query", "depth"] },
        { name: "a non-numeric depth", request: get("?depth=all"), status: 422, loc: ["query", "depth"] },
        { name: "a non-UUID parent_id with a depth", request: get("?parent_id=root&depth=1"), status: 422, loc: ["query", "parent_id"] },
      ],
    );
  });
});
