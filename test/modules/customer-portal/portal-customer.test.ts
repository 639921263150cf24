import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createCustomerSessionToken, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let customerId: string;
let session: string;
let orgToken: string;

const FR = { country: "FR", line1: " 1 rue de Rivoli ", city: "Paris", postal_code: "75001" };
const ORIGINAL = { billing_name: null, billing_address: null, tax_id: null, modified_at: null };

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  customerId = (await createCustomer(ctx.deps, orgId, { name: "Ada Customer" })).id;
  session = await createCustomerSessionToken(ctx.deps, customerId);
  orgToken = await createOrganizationToken(ctx.deps, orgId, ["customers:write"]);
});
afterAll(() => ctx.close());
beforeEach(async () => {
  await ctx.deps.db.updateTable("customers").set(ORIGINAL).where("id", "=", customerId).execute();
});

const URL = "/v1/customer-portal/customers/me";
const patch = (payload: Record<string, unknown>, token: string | null = session) =>
  ctx.request({ method: "PATCH", url: URL, payload, token });
const stored = () => ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();
const updatedEvents = async () =>
  (
    await ctx.deps.db
      .selectFrom("webhook_events")
      .select("payload")
      .where("organization_id", "=", orgId)
      .where("type", "=", "customer.updated")
      .execute()
  ).length;

describe("GET /v1/customer-portal/customers/me", () => {
  it("answers the session's customer", async () => {
    const response = await ctx.request({ method: "GET", url: URL, token: session });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:customers:get", 200, body);
    expect(body).toMatchObject({
      id: customerId,
      name: "Ada Customer",
      billing_name: "Ada Customer",
      billing_address: null,
      tax_id: null,
      oauth_accounts: {},
      type: "individual",
      locale: null,
      default_payment_method_id: null,
    });
  });

  it("refuses no token, an organization token and an expired session with 401", async () => {
    expect((await ctx.request({ method: "GET", url: URL })).json()).toEqual({ error: "Unauthorized", detail: "Unauthorized" });
    expect((await ctx.request({ method: "GET", url: URL, token: orgToken })).statusCode).toBe(401);
    const token = await createCustomerSessionToken(ctx.deps, customerId);
    ctx.clock.advance(2 * 3600 * 1000);
    try {
      const response = await ctx.request({ method: "GET", url: URL, token });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe("invalid_token");
    } finally {
      ctx.clock.advance(-2 * 3600 * 1000);
    }
  });
});

describe("PATCH /v1/customer-portal/customers/me", () => {
  it("updates billing name, trimmed address and tax ID, and emits customer.updated", async () => {
    const before = await updatedEvents();
    const response = await patch({ billing_name: "  Ada Ltd ", billing_address: FR, tax_id: "FR 61 954 506 077", ignored: true });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:customers:update", 200, body);
    expect(body).toMatchObject({
      billing_name: "Ada Ltd",
      billing_address: { country: "FR", line1: "1 rue de Rivoli", line2: null, city: "Paris", postal_code: "75001", state: null },
      tax_id: ["FR61954506077", "eu_vat"],
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(await updatedEvents()).toBe(before + 1);
  });

  it("keeps the billing name on null or empty, and clears the tax ID on empty", async () => {
    await patch({ billing_name: "Kept", billing_address: FR, tax_id: "FR61954506077" });
    const response = await patch({ billing_name: "", tax_id: "" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ billing_name: "Kept", tax_id: null });
    expect((await patch({ billing_name: null })).json().billing_name).toBe("Kept");
  });

  it("prefixes and checks US states", async () => {
    const response = await patch({
      billing_address: { country: "US", state: "ny", line1: "1 Main St", city: "New York", postal_code: "10001" },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().billing_address.state).toBe("US-NY");
    const canada = await patch({ billing_address: { country: "CA", state: "CA-QC" } });
    expect(canada.json().billing_address.state).toBe("CA-QC");
  });

  it("re-validates the stored tax ID when the address changes", async () => {
    await patch({ billing_address: FR, tax_id: "FR61954506077" });
    const response = await patch({ billing_address: { country: "US", state: "NY" } });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([{ loc: ["body", "tax_id"], msg: "Invalid tax ID.", type: "invalid", input: "FR61954506077" }]);
    expect((await stored()).billing_address).toMatchObject({ country: "FR" });
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a null billing address",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_address: null } }),
        status: 422,
        loc: ["body", "billing_address"],
      },
      {
        name: "a tax ID without an address",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { tax_id: "FR61954506077" } }),
        status: 422,
        loc: ["body", "billing_address"],
      },
      {
        name: "an invalid tax ID",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_address: FR, tax_id: "FR00000000000" } }),
        status: 422,
        loc: ["body", "tax_id"],
      },
      {
        name: "an unknown US state",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_address: { country: "US", state: "ZZ" } } }),
        status: 422,
        loc: ["body", "billing_address", "state"],
      },
      {
        name: "a US address without state",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_address: { country: "US" } } }),
        status: 422,
        loc: ["body", "billing_address", "state"],
      },
      {
        name: "a bad CA subdivision",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_address: { country: "CA", state: "NY" } } }),
        status: 422,
        loc: ["body", "billing_address", "state"],
      },
      {
        name: "an unknown country",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_address: { country: "XX" } } }),
        status: 422,
        loc: ["body", "billing_address", "country"],
      },
      {
        name: "a numeric billing name",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_name: 5 } }),
        status: 422,
        loc: ["body", "billing_name"],
      },
      {
        name: "an overlong billing name",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { billing_name: "n".repeat(1000) } }),
        status: 422,
        loc: ["body", "billing_name"],
      },
      {
        name: "a payment method that is not the customer's",
        request: () => ({
          method: "PATCH",
          url: URL,
          token: session,
          payload: { default_payment_method_id: "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a" },
        }),
        status: 422,
        loc: ["body", "default_payment_method_id"],
      },
      {
        name: "a null payment method",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { default_payment_method_id: null } }),
        status: 422,
        loc: ["body", "default_payment_method_id"],
      },
      {
        name: "a non-UUID payment method",
        request: () => ({ method: "PATCH", url: URL, token: session, payload: { default_payment_method_id: "pm_1" } }),
        status: 422,
        loc: ["body", "default_payment_method_id"],
      },
      { name: "no token", request: () => ({ method: "PATCH", url: URL, payload: {} }), status: 401, error: "Unauthorized" },
      {
        name: "an organization token",
        request: () => ({ method: "PATCH", url: URL, token: orgToken, payload: {} }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "an unknown session token",
        request: () => ({ method: "PATCH", url: URL, token: "polar_cst_nothing00000000000000000000000000000", payload: {} }),
        status: 401,
        error: "invalid_token",
      },
    ],
    async () => expect(await stored()).toMatchObject(ORIGINAL),
  );
});
