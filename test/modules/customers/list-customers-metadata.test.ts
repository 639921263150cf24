import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token],
  } = await openOrganizationContext(["customers:read"]));
  const tagged = (email: string, metadata: Record<string, string | number | boolean>) =>
    createCustomer(ctx.deps, orgId, { email, metadata: JSON.stringify(metadata) });
  await tagged("gold@meta.example", { tier: "gold", seats: 5 });
  await tagged("gold-vip@meta.example", { tier: "gold", vip: true });
  await tagged("silver@meta.example", { tier: "silver" });
  await tagged("plain@meta.example", {});
  await createCustomer(ctx.deps, orgId, {
    email: "deleted@meta.example",
    metadata: JSON.stringify({ tier: "gold" }),
    deleted_at: new Date(),
  });
  await createCustomer(ctx.deps, (await createOrganization(ctx.deps)).id, {
    email: "foreign@meta.example",
    metadata: JSON.stringify({ tier: "gold" }),
  });
});
afterAll(() => ctx.close());

const list = (query: string) => ctx.request({ method: "GET", url: `/v1/customers/${query}`, token });
const emails = async (query: string) => ((await list(query)).json().items as { email: string }[]).map((c) => c.email).sort();

describe("GET /v1/customers/?metadata[key]=value", () => {
  it("ORs a key's values and ANDs different keys, comparing as text, among the organization's live customers", async () => {
    expect(await emails("?metadata[tier]=gold")).toEqual(["gold-vip@meta.example", "gold@meta.example"]);
    expect(await emails("?metadata[tier]=gold&metadata[tier]=silver")).toEqual([
      "gold-vip@meta.example",
      "gold@meta.example",
      "silver@meta.example",
    ]);
    expect(await emails("?metadata[tier]=gold&metadata[vip]=true")).toEqual(["gold-vip@meta.example"]);
    expect(await emails("?metadata[seats]=5")).toEqual(["gold@meta.example"]);
    expect(await emails("?metadata[tier]=platinum")).toEqual([]);
  });

  it("combines with the other filters and counts what it matches", async () => {
    // `query=gold` alone matches two customers; the metadata leaves one.
    const response = await list("?metadata[vip]=true&query=gold");
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("customers:list", 200, response.json());
    expect(response.json().pagination).toEqual({ total_count: 1, max_page: 1 });
  });

  it("reads the deepObject pairs of `metadata` whatever order a bare `metadata` value comes in", async () => {
    expect(await emails("?metadata=gold&metadata[tier]=silver")).toEqual(["silver@meta.example"]);
    expect(await emails("?metadata[tier]=silver&metadata=gold")).toEqual(["silver@meta.example"]);
  });

  it("treats keys as data: a `__proto__` key filters like any other", async () => {
    expect(await emails("?metadata[__proto__]=gold")).toEqual([]);
    expect(await emails("?metadata[__proto__]=gold&metadata[tier]=silver")).toEqual([]);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "metadata without a key",
        request: () => ({ method: "GET", url: "/v1/customers/?metadata=gold", token }),
        status: 422,
        loc: ["query", "metadata"],
      },
      {
        name: "more than 100 values for one metadata key",
        request: () => ({
          method: "GET",
          url: `/v1/customers/?${Array.from({ length: 101 }, (_, i) => `metadata[tier]=t${i}`).join("&")}`,
          token,
        }),
        status: 422,
        loc: ["query", "metadata", "tier"],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/customers/?metadata[tier]=gold" }), status: 401 },
    ],
  );
});
