import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createProduct } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

/** The public portal view of an organization: `GET /v1/customer-portal/organizations/{slug}`, no session needed. */
let ctx: TestContext;
let org: { id: string; name: string; slug: string };

beforeAll(async () => {
  ctx = await createTestContext();
  org = await createOrganization(ctx.deps);
});
afterAll(() => ctx.close());

const get = (slug: string) => ctx.request({ method: "GET", url: `/v1/customer-portal/organizations/${encodeURIComponent(slug)}` });

describe("GET /v1/customer-portal/organizations/{slug}", () => {
  it("answers the organization with its public, unarchived products, oldest first, without a session", async () => {
    const first = await createProduct(ctx.deps, org.id, {
      product: { name: "Monthly", recurring_interval: "month", recurring_interval_count: 1 },
      benefits: [{ type: "custom", description: "Support", properties: { note: "private note" } }],
    });
    const second = await createProduct(ctx.deps, org.id, { product: { name: "Lifetime" } });
    await createProduct(ctx.deps, org.id, { product: { name: "Hidden", visibility: "private" } });
    await createProduct(ctx.deps, org.id, { product: { name: "Draft", visibility: "draft" } });
    await createProduct(ctx.deps, org.id, { product: { name: "Old", is_archived: true } });
    await createProduct(ctx.deps, (await createOrganization(ctx.deps)).id, { product: { name: "Elsewhere" } });

    const response = await get(org.slug);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:organizations:get", 200, body);
    expect(body.organization).toMatchObject({
      id: org.id,
      name: org.name,
      slug: org.slug,
      avatar_url: null,
      allow_customer_updates: expect.any(Boolean),
      customer_portal_settings: { usage: { show: expect.any(Boolean) }, subscription: expect.any(Object) },
      organization_features: { member_model_enabled: false, checkout_localization_enabled: false },
    });
    expect(body.products.map((product: { id: string }) => product.id)).toEqual([first.product.id, second.product.id]);
    expect(body.products[0]).toMatchObject({ name: "Monthly", is_recurring: true, organization_id: org.id, visibility: "public" });
    expect(body.products[0].benefits).toHaveLength(1);
    expect(body.products[0]).not.toHaveProperty("metadata");
    expect(JSON.stringify(body)).not.toContain("private note");
  });

  it("answers an organization without products with an empty list", async () => {
    const empty = await createOrganization(ctx.deps);
    const response = await get(empty.slug);
    expect(response.statusCode).toBe(200);
    expect(response.json().products).toEqual([]);
  });
});

describe("GET /v1/customer-portal/organizations/{slug}: bad input", () => {
  badInputTable(
    () => ctx.request,
    [
      {
        name: "an unknown slug",
        request: () => ({ method: "GET", url: "/v1/customer-portal/organizations/no-such-org" }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "an overlong slug",
        request: () => ({ method: "GET", url: `/v1/customer-portal/organizations/${"x".repeat(300)}` }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "a UUID instead of a slug",
        request: () => ({ method: "GET", url: `/v1/customer-portal/organizations/${org.id}` }),
        status: 404,
        error: "ResourceNotFound",
      },
    ],
  );
});
