import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createCustomerSessionToken, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { insertWallet, insertWalletTransaction } from "../../../src/modules/wallets/wallets.steps.ts";
import { createMember, createMemberSessionToken, enableMembers } from "../customers/member-helpers.ts";

/** The portal's wallets: nothing creates them yet, so the tests insert them as a credit feature would. */
let ctx: TestContext;
let session: string;
let orgToken: string;
let plainMemberSession: string;
let ownerSession: string;
const wallets: Record<string, string> = {};

async function walletWith(organizationId: string, customerId: string, type: "usage" | "billing", currency: string, amounts: number[]) {
  const wallet = await insertWallet(ctx.deps.db, {
    created_at: ctx.deps.now(),
    organization_id: organizationId,
    customer_id: customerId,
    type,
    currency,
    modified_at: null,
    deleted_at: null,
  });
  for (const amount of amounts) await insertWalletTransaction(ctx.deps.db, { wallet_id: wallet.id, amount });
  return wallet.id;
}

beforeAll(async () => {
  ctx = await createTestContext();
  const org = await createOrganization(ctx.deps);
  const customer = await createCustomer(ctx.deps, org.id);
  session = await createCustomerSessionToken(ctx.deps, customer.id);
  orgToken = await createOrganizationToken(ctx.deps, org.id, ["customer_portal:read", "customers:read"]);
  wallets.usd = await walletWith(org.id, customer.id, "usage", "usd", [5_000, -1_250, 300]);
  ctx.clock.advance(1000);
  wallets.eur = await walletWith(org.id, customer.id, "billing", "eur", []);
  ctx.clock.advance(1000);
  wallets.big = await walletWith(org.id, customer.id, "billing", "usd", [9_000_000_000]);
  const deleted = await walletWith(org.id, customer.id, "usage", "gbp", [100]);
  await ctx.deps.db.updateTable("wallets").set({ deleted_at: new Date() }).where("id", "=", deleted).execute();
  wallets.deleted = deleted;

  const neighbour = await createCustomer(ctx.deps, org.id);
  wallets.neighbour = await walletWith(org.id, neighbour.id, "usage", "usd", [700]);
  const other = await createOrganization(ctx.deps);
  wallets.otherOrg = await walletWith(other.id, (await createCustomer(ctx.deps, other.id)).id, "usage", "usd", [1]);

  const team = await createOrganization(ctx.deps);
  await enableMembers(ctx.deps, team.id);
  const teamCustomer = await createCustomer(ctx.deps, team.id, { type: "team" });
  const owner = await createMember(ctx.deps, teamCustomer, "owner");
  const plain = await createMember(ctx.deps, teamCustomer, "member");
  ownerSession = await createMemberSessionToken(ctx.deps, teamCustomer.id, owner.id);
  plainMemberSession = await createMemberSessionToken(ctx.deps, teamCustomer.id, plain.id);
  wallets.team = await walletWith(team.id, teamCustomer.id, "usage", "usd", [42]);
});
afterAll(() => ctx.close());

const list = (query = "", token: string | null = session) =>
  ctx.request({ method: "GET", url: `/v1/customer-portal/wallets/${query}`, token });

describe("GET /v1/customer-portal/wallets/", () => {
  it("lists the customer's live wallets, newest first, with balances summed from transactions", async () => {
    const response = await list();
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:wallets:list", 200, body);
    expect(body.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(body.items.map((wallet: { id: string }) => wallet.id)).toEqual([wallets.big, wallets.eur, wallets.usd]);
    expect(body.items[2]).toEqual({
      id: wallets.usd,
      created_at: expect.any(String),
      modified_at: null,
      customer_id: expect.any(String),
      balance: 4_050,
      currency: "usd",
    });
    expect(body.items[1].balance).toBe(0);
    expect(body.items[0].balance).toBe(9_000_000_000);
  });

  it("sorts by balance and pages", async () => {
    const ascending = (await list("?sorting=balance")).json();
    expect(ascending.items.map((wallet: { id: string }) => wallet.id)).toEqual([wallets.eur, wallets.usd, wallets.big]);
    const page = (await list("?sorting=-balance&limit=1&page=2")).json();
    expect(page).toMatchObject({ items: [{ id: wallets.usd }], pagination: { total_count: 3, max_page: 3 } });
  });

  it("answers owners' member sessions, and an empty list for a customer without wallets", async () => {
    expect((await list("", ownerSession)).json().items.map((wallet: { id: string }) => wallet.id)).toEqual([wallets.team]);
    const lonely = await createCustomerSessionToken(ctx.deps, (await createCustomer(ctx.deps, (await createOrganization(ctx.deps)).id)).id);
    expect((await list("", lonely)).json()).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });
});

describe("GET /v1/customer-portal/wallets/{id}", () => {
  it("answers one of the customer's wallets", async () => {
    const response = await ctx.request({ method: "GET", url: `/v1/customer-portal/wallets/${wallets.usd}`, token: session });
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("customer_portal:wallets:get", 200, response.json());
    expect(response.json()).toMatchObject({ id: wallets.usd, balance: 4_050, currency: "usd" });
  });
});

describe("wallets: bad input", () => {
  const listWith = getRequest("/v1/customer-portal/wallets/", () => session);
  const getOne =
    (id: () => string, token: () => string | null = () => session) =>
    () => ({
      method: "GET" as const,
      url: `/v1/customer-portal/wallets/${id()}`,
      token: token(),
    });
  badInputTable(
    () => ctx.request,
    [
      { name: "a list without a session", request: listWith("", () => null), status: 401 },
      { name: "a list with an organization token", request: listWith("", () => orgToken), status: 401 },
      { name: "a list by a plain member", request: listWith("", () => plainMemberSession), status: 403 },
      { name: "an unknown sorting key", request: listWith("?sorting=currency"), status: 422, loc: ["query", "sorting", 0] },
      { name: "a page of zero", request: listWith("?page=0"), status: 422, loc: ["query", "page"] },
      { name: "a limit that is not a number", request: listWith("?limit=ten"), status: 422, loc: ["query", "limit"] },
      { name: "a non-UUID id", request: getOne(() => "not-a-uuid"), status: 422, loc: ["path", "id"] },
      { name: "another customer's wallet", request: getOne(() => wallets.neighbour!), status: 404, error: "ResourceNotFound" },
      { name: "another organization's wallet", request: getOne(() => wallets.otherOrg!), status: 404, error: "ResourceNotFound" },
      { name: "a deleted wallet", request: getOne(() => wallets.deleted!), status: 404, error: "ResourceNotFound" },
      { name: "an unknown wallet", request: getOne(() => "6f1c1a37-6c43-4c55-9d3d-5a4f2a0b7e11"), status: 404, error: "ResourceNotFound" },
      {
        name: "a wallet without a session",
        request: getOne(
          () => wallets.usd!,
          () => null,
        ),
        status: 401,
      },
      {
        name: "a wallet by a plain member",
        request: getOne(
          () => wallets.team!,
          () => plainMemberSession,
        ),
        status: 403,
      },
    ],
  );
});
