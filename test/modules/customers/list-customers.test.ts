import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createOrganization,
  createOrganizationToken,
  createSubscription,
  tamperLastCharacter,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let token: string;
let capToken: string;

/** More customers than a page may hold, in an organization of their own. */
const CAPPED = 101;

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  token = await createOrganizationToken(ctx.deps, orgId, ["customers:read"]);
  const start = new Date("2026-01-01T00:00:00Z").getTime();
  // Twelve customers; two share a creation time so the id tiebreaker matters.
  for (let i = 0; i < 12; i += 1) {
    await createCustomer(ctx.deps, orgId, {
      email: `c${String(i).padStart(2, "0")}@list.example`,
      name: i % 3 === 0 ? `Zed ${i}` : `Amy ${i}`,
      created_at: new Date(start + Math.min(i, 10) * 1000),
    });
  }
  await createCustomer(ctx.deps, orgId, { email: "deleted@list.example", deleted_at: new Date() });
  await createCustomer(ctx.deps, otherOrgId, { email: "other@list.example" });
  const capOrgId = (await createOrganization(ctx.deps)).id;
  capToken = await createOrganizationToken(ctx.deps, capOrgId, ["customers:read"]);
  await Promise.all(Array.from({ length: CAPPED }, (_, i) => createCustomer(ctx.deps, capOrgId, { email: `cap${i}@list.example` })));
});
afterAll(() => ctx.close());

const list = (query: string, as: string | null = token) => ctx.request({ method: "GET", url: `/v1/customers/${query}`, token: as });

describe("GET /v1/customers/", () => {
  it("pages newest first by default, 10 per page, without the deleted or other organizations' customers", async () => {
    const first = await list("");
    expect(first.statusCode).toBe(200);
    expectReferenceResponse("customers:list", 200, first.json());
    expect(first.json().pagination).toEqual({ total_count: 12, max_page: 2 });
    expect(first.json().items).toHaveLength(10);
    const second = (await list("?page=2")).json();
    const all = [...first.json().items, ...second.items].map((c: { email: string }) => c.email);
    expect(new Set(all).size).toBe(12);
    expect(all[0]).toMatch(/c1[01]@/);
    expect(all.slice(2)).toEqual(Array.from({ length: 10 }, (_, i) => `c${String(9 - i).padStart(2, "0")}@list.example`));
  });

  it("sorts by several keys in order and filters by query and email", async () => {
    const body = (await list("?sorting=-name&sorting=email&limit=4")).json();
    expect(body.items.map((c: { name: string }) => c.name)).toEqual(["Zed 9", "Zed 6", "Zed 3", "Zed 0"]);
    const byQuery = (await list("?query=amy%201")).json();
    expect(byQuery.items.map((c: { name: string }) => c.name).sort()).toEqual(["Amy 1", "Amy 10", "Amy 11"]);
    const byEmail = (await list("?email=C05@LIST.example")).json();
    expect(byEmail.items.map((c: { email: string }) => c.email)).toEqual(["c05@list.example"]);
  });

  it("filters by active: a trialing, active or past_due subscription; false is every other customer", async () => {
    const emails = async (query: string) =>
      (await list(`${query}&limit=100`))
        .json()
        .items.map((c: { email: string }) => c.email)
        .sort() as string[];
    expect(await emails("?active=true")).toEqual([]);
    const customers = await ctx.deps.db.selectFrom("customers").selectAll().where("organization_id", "=", orgId).orderBy("email").execute();
    const statuses = ["active", "trialing", "past_due", "canceled", "paused", "unpaid", "incomplete"] as const;
    for (const [i, status] of statuses.entries()) {
      const subscription = await createSubscription(ctx.deps, orgId, { customer: customers[i]! });
      await ctx.deps.db.updateTable("subscriptions").set({ status }).where("id", "=", subscription.id).execute();
    }
    // A second, ended subscription does not make an active customer inactive.
    const ended = await createSubscription(ctx.deps, orgId, { customer: customers[0]! });
    await ctx.deps.db.updateTable("subscriptions").set({ status: "canceled" }).where("id", "=", ended.id).execute();
    const stranger = await ctx.deps.db
      .selectFrom("customers")
      .selectAll()
      .where("organization_id", "=", otherOrgId)
      .executeTakeFirstOrThrow();
    await createSubscription(ctx.deps, otherOrgId, { customer: stranger });
    expect(await emails("?active=true")).toEqual(["c00@list.example", "c01@list.example", "c02@list.example"]);
    const inactive = await emails("?active=false");
    expect(inactive).toHaveLength(9);
    expect(inactive).not.toContain("c00@list.example");
    expect(inactive).toContain("c03@list.example");
  });

  it("caps the page size at 100: 101 customers asked for 1,000 a page take two pages", async () => {
    const first = await list("?limit=1000", capToken);
    expect(first.statusCode).toBe(200);
    expect(first.json().items).toHaveLength(100);
    expect(first.json().pagination).toEqual({ total_count: CAPPED, max_page: 2 });
    const second = (await list("?limit=1000&page=2", capToken)).json();
    expect(second.items).toHaveLength(1);
    const emails = [...first.json().items, ...second.items].map((c: { email: string }) => c.email);
    expect(new Set(emails).size).toBe(CAPPED);
  });

  it("treats a percent sign in the query literally", async () => {
    const response = await list("?query=%25");
    expect(response.statusCode).toBe(200);
    expect(response.json().pagination.total_count).toBe(0);
  });

  it("lets the owner see every organization, or filter by organization_id", async () => {
    // This organization's twelve, the other organization's one and the page-cap organization's 101.
    expect((await list("?limit=100", ctx.ownerToken)).json().pagination.total_count).toBe(12 + 1 + CAPPED);
    expect((await list(`?organization_id=${otherOrgId}`, ctx.ownerToken)).json().items.map((c: { email: string }) => c.email)).toEqual([
      "other@list.example",
    ]);
    // An organization token filtering by another organization sees nothing of it.
    expect((await list(`?organization_id=${otherOrgId}`)).json().pagination.total_count).toBe(0);
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "limit 0", request: () => ({ method: "GET", url: "/v1/customers/?limit=0", token }), status: 422, loc: ["query", "limit"] },
      {
        name: "a page beyond int32",
        request: () => ({ method: "GET", url: "/v1/customers/?page=99999999999999999999", token }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "a negative page",
        request: () => ({ method: "GET", url: "/v1/customers/?page=-1", token }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "a non-integer limit",
        request: () => ({ method: "GET", url: "/v1/customers/?limit=ten", token }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "an unknown sorting key",
        request: () => ({ method: "GET", url: "/v1/customers/?sorting=age", token }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "a non-boolean active",
        request: () => ({ method: "GET", url: "/v1/customers/?active=maybe", token }),
        status: 422,
        loc: ["query", "active"],
      },
      {
        name: "a non-UUID organization_id",
        request: () => ({ method: "GET", url: "/v1/customers/?organization_id=x", token }),
        status: 422,
        loc: ["query", "organization_id", 0],
      },
      {
        name: "an overlong query",
        request: () => ({ method: "GET", url: `/v1/customers/?query=${"q".repeat(300)}`, token }),
        status: 422,
        loc: ["query", "query"],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/customers/" }), status: 401, error: "Unauthorized" },
      {
        name: "a corrupted personal token",
        request: () => ({ method: "GET", url: "/v1/customers/", token: tamperLastCharacter(ctx.ownerToken) }),
        status: 401,
        error: "invalid_token",
      },
    ],
  );

  it("answers 403 to a token of another scope", async () => {
    const other = await createOrganizationToken(ctx.deps, orgId, ["products:read"]);
    const response = await list("", other);
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe("insufficient_scope");
  });
});
