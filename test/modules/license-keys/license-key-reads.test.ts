import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createLicenseKey,
  createOrganization,
  createOrganizationToken,
  createProduct,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { addActivation } from "../portal-page/portal-page-helpers.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let customerId: string;
let otherCustomerId: string;
let readToken: string;
let otherToken: string;
let eventsToken: string;
let sessionToken: string;
let keys: Awaited<ReturnType<typeof createLicenseKey>>[];
let foreignKey: Awaited<ReturnType<typeof createLicenseKey>>;

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  customerId = (await createCustomer(ctx.deps, orgId)).id;
  otherCustomerId = (await createCustomer(ctx.deps, orgId)).id;
  readToken = await createOrganizationToken(ctx.deps, orgId, ["license_keys:read"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["license_keys:read"]);
  eventsToken = await createOrganizationToken(ctx.deps, orgId, ["events:read"]);
  sessionToken = await createCustomerSessionToken(ctx.deps, customerId);
  keys = [
    await createLicenseKey(ctx.deps, orgId, customerId),
    await createLicenseKey(ctx.deps, orgId, customerId, { status: "revoked" }),
    await createLicenseKey(ctx.deps, orgId, otherCustomerId),
  ];
  await createLicenseKey(ctx.deps, orgId, customerId, { deleted_at: new Date() });
  foreignKey = await createLicenseKey(ctx.deps, otherOrgId, (await createCustomer(ctx.deps, otherOrgId)).id);
});
afterAll(() => ctx.close());

const get = (url: string, token: string | null) => ctx.request({ method: "GET", url, token });
const ids = (body: { items: { id: string }[] }) => body.items.map((item) => item.id).sort();

describe("GET /v1/license-keys/", () => {
  it("lists the organization's live keys, filtered by status and benefit", async () => {
    const response = await get("/v1/license-keys/", readToken);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("license_keys:list", 200, body);
    expect(ids(body)).toEqual(keys.map((k) => k.id).sort());
    expect(body.pagination).toEqual({ total_count: 3, max_page: 1 });

    const revoked = (await get("/v1/license-keys/?status=revoked", readToken)).json();
    expect(ids(revoked)).toEqual([keys[1]!.id]);
    const byBenefit = (await get(`/v1/license-keys/?benefit_id=${keys[2]!.benefit_id}&limit=1`, readToken)).json();
    expect(byBenefit).toMatchObject({
      items: [{ id: keys[2]!.id, customer_id: otherCustomerId }],
      pagination: { total_count: 1, max_page: 1 },
    });
    const owner = (await get(`/v1/license-keys/?organization_id=${otherOrgId}`, ctx.ownerToken)).json();
    expect(ids(owner)).toEqual([foreignKey.id]);
  });

  it("filters by customer (an extension), paged, one or several; another organization's customer lists nothing", async () => {
    const first = await get(`/v1/license-keys/?customer_id=${customerId}&limit=1`, readToken);
    expect(first.statusCode, first.body).toBe(200);
    expectReferenceResponse("license_keys:list", 200, first.json());
    expect(first.json()).toMatchObject({ items: [{ customer_id: customerId }], pagination: { total_count: 2, max_page: 2 } });
    const second = (await get(`/v1/license-keys/?customer_id=${customerId}&limit=1&page=2`, readToken)).json();
    expect([...ids(first.json()), ...ids(second)].sort()).toEqual([keys[0]!.id, keys[1]!.id].sort());
    const granted = (await get(`/v1/license-keys/?customer_id=${customerId}&status=granted`, readToken)).json();
    expect(ids(granted)).toEqual([keys[0]!.id]);
    const both = (await get(`/v1/license-keys/?customer_id=${customerId}&customer_id=${otherCustomerId}`, readToken)).json();
    expect(ids(both)).toEqual(keys.map((k) => k.id).sort());
    const foreign = await get(`/v1/license-keys/?customer_id=${foreignKey.customer_id}`, readToken);
    expect(foreign.statusCode).toBe(200);
    expect(foreign.json()).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });

  it("gets one key with its live activations", async () => {
    const activation = await ctx.deps.db
      .insertInto("license_key_activations")
      .values({
        organization_id: orgId,
        license_key_id: keys[0]!.id,
        label: "desk",
        conditions: "{}",
        meta: JSON.stringify({ os: "mac" }),
        modified_at: null,
        deleted_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await ctx.deps.db
      .insertInto("license_key_activations")
      .values({
        organization_id: orgId,
        license_key_id: keys[0]!.id,
        label: "gone",
        conditions: "{}",
        meta: "{}",
        modified_at: null,
        deleted_at: new Date(),
      })
      .execute();
    const response = await get(`/v1/license-keys/${keys[0]!.id}`, readToken);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expectReferenceResponse("license_keys:get", 200, body);
    expect(body).toMatchObject({ id: keys[0]!.id, key: keys[0]!.key, customer: { id: customerId, type: "individual" } });
    expect(body.activations).toEqual([expect.objectContaining({ id: activation.id, label: "desk", meta: { os: "mac" } })]);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID id",
        request: () => ({ method: "GET", url: "/v1/license-keys/nope", token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "another organization's key",
        request: () => ({ method: "GET", url: `/v1/license-keys/${foreignKey.id}`, token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "an unknown key",
        request: () => ({ method: "GET", url: "/v1/license-keys/3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a", token: otherToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "a bad status filter",
        request: () => ({ method: "GET", url: "/v1/license-keys/?status=lost", token: readToken }),
        status: 422,
        loc: ["query", "status"],
      },
      {
        name: "a non-UUID customer filter",
        request: () => ({ method: "GET", url: "/v1/license-keys/?customer_id=nope", token: readToken }),
        status: 422,
        loc: ["query", "customer_id"],
      },
      {
        name: "a customer filter with one bad UUID among good ones",
        request: () => ({ method: "GET", url: `/v1/license-keys/?customer_id=${customerId}&customer_id=42`, token: readToken }),
        status: 422,
        loc: ["query", "customer_id"],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/license-keys/" }), status: 401, error: "Unauthorized" },
      {
        name: "a customer session",
        request: () => ({ method: "GET", url: "/v1/license-keys/", token: sessionToken }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "a token without the scope",
        request: () => ({ method: "GET", url: "/v1/license-keys/", token: eventsToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});

describe("GET /v1/license-keys/{id}/activations/{activation_id}", () => {
  // Keys of their own, so the other reads' activations stay as they are.
  let key: Awaited<ReturnType<typeof createLicenseKey>>;
  let live: string;
  let deactivated: string;
  let ofAnotherKey: string;
  let foreignActivation: string;
  const url = (keyId: string, activationId: string) => `/v1/license-keys/${keyId}/activations/${activationId}`;
  beforeAll(async () => {
    key = await createLicenseKey(ctx.deps, orgId, otherCustomerId);
    live = await addActivation(ctx, orgId, key.id, "laptop");
    deactivated = await addActivation(ctx, orgId, key.id, "old laptop");
    await ctx.deps.db.updateTable("license_key_activations").set({ deleted_at: new Date() }).where("id", "=", deactivated).execute();
    ofAnotherKey = await addActivation(ctx, orgId, (await createLicenseKey(ctx.deps, orgId, otherCustomerId)).id, "studio");
    foreignActivation = await addActivation(ctx, otherOrgId, foreignKey.id, "elsewhere");
  });

  it("gets a live activation with its key, for a read or a write token", async () => {
    const writeToken = await createOrganizationToken(ctx.deps, orgId, ["license_keys:write"]);
    for (const token of [readToken, writeToken]) {
      const response = await get(url(key.id, live), token);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expectReferenceResponse("license_keys:get_activation", 200, body);
      expect(body).toMatchObject({
        id: live,
        license_key_id: key.id,
        label: "laptop",
        license_key: { id: key.id, key: key.key, customer: { id: otherCustomerId } },
      });
    }
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID key id",
        request: () => ({ method: "GET", url: url("nope", live), token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "a non-UUID activation id",
        request: () => ({ method: "GET", url: url(key.id, "nope"), token: readToken }),
        status: 422,
        loc: ["path", "activation_id"],
      },
      {
        name: "a deactivated activation",
        request: () => ({ method: "GET", url: url(key.id, deactivated), token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another key's activation",
        request: () => ({ method: "GET", url: url(key.id, ofAnotherKey), token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's key and activation",
        request: () => ({ method: "GET", url: url(foreignKey.id, foreignActivation), token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "no token", request: () => ({ method: "GET", url: url(key.id, live) }), status: 401, error: "Unauthorized" },
      {
        name: "a customer session",
        request: () => ({ method: "GET", url: url(key.id, live), token: sessionToken }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "a token without the scope",
        request: () => ({ method: "GET", url: url(key.id, live), token: eventsToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});

describe("GET /v1/customer-portal/license-keys/", () => {
  it("lists and gets only the session customer's keys", async () => {
    const response = await get("/v1/customer-portal/license-keys/", sessionToken);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:license_keys:list", 200, body);
    expect(ids(body)).toEqual([keys[0]!.id, keys[1]!.id].sort());
    const byBenefit = (await get(`/v1/customer-portal/license-keys/?benefit_id=${keys[1]!.benefit_id}`, sessionToken)).json();
    expect(ids(byBenefit)).toEqual([keys[1]!.id]);

    const one = await get(`/v1/customer-portal/license-keys/${keys[1]!.id}`, sessionToken);
    expect(one.statusCode).toBe(200);
    expectReferenceResponse("customer_portal:license_keys:get", 200, one.json());
    expect(one.json()).toMatchObject({ id: keys[1]!.id, status: "revoked", activations: [] });
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "another customer's key",
        request: () => ({ method: "GET", url: `/v1/customer-portal/license-keys/${keys[2]!.id}`, token: sessionToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's key",
        request: () => ({ method: "GET", url: `/v1/customer-portal/license-keys/${foreignKey.id}`, token: sessionToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "a non-UUID id",
        request: () => ({ method: "GET", url: "/v1/customer-portal/license-keys/x", token: sessionToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an organization token",
        request: () => ({ method: "GET", url: "/v1/customer-portal/license-keys/", token: readToken }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "no token",
        request: () => ({ method: "GET", url: "/v1/customer-portal/license-keys/" }),
        status: 401,
        error: "Unauthorized",
      },
    ],
  );

  it("refuses an expired session", async () => {
    const token = await createCustomerSessionToken(ctx.deps, customerId);
    ctx.clock.advance(2 * 3600 * 1000);
    try {
      const response = await get("/v1/customer-portal/license-keys/", token);
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe("invalid_token");
    } finally {
      ctx.clock.advance(-2 * 3600 * 1000);
    }
  });
});

describe("a key bought through a checkout", () => {
  it("activates the moment the confirmation answers", async () => {
    const token = await createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]);
    const product = await createProduct(ctx.deps, orgId, {
      benefits: [
        {
          type: "license_keys",
          description: "Key",
          properties: { prefix: "app", activations: { limit: 2, enable_customer_admin: false } },
        },
      ],
    });
    const opened = await ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload: { products: [product.product.id] } });
    expect(opened.statusCode, opened.body).toBe(201);
    const confirmed = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${opened.json().client_secret}/confirm`,
      payload: {
        customer_email: "buyer@example.com",
        customer_name: "Buyer",
        customer_billing_address: { country: "FR" },
        confirmation_token_id: "tok_visa",
      },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const session = confirmed.json().customer_session_token as string;
    const [bought] = (await get("/v1/customer-portal/license-keys/", session)).json().items;
    expect(bought.key).toMatch(/^APP-/);
    const activated = await ctx.request({
      method: "POST",
      url: "/v1/customer-portal/license-keys/activate",
      payload: { key: bought.key, organization_id: orgId, label: "first" },
    });
    expect(activated.statusCode, activated.body).toBe(200);
    expect(activated.json().license_key).toMatchObject({ id: bought.id, limit_activations: 2 });
  });
});
