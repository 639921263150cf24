import { createPolar } from "@polar-sh/sdk/2026-04";
import { Polar as LegacyPolar } from "polar-sdk-legacy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, listen, type TestContext } from "../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrder, createOrganization, createOrganizationToken } from "../helpers/factories.ts";

/**
 * Customers' computed avatar through both official clients against a listening server: the 0.x
 * line (the framework adapters' `^0.47`) and the current 2026-04 client decode orders, license
 * keys and license-key validations with it.
 */
let ctx: TestContext;
let baseUrl: string;
let organizationId: string;
let token: string;
let orderId: string;
let licenseKey: { id: string; key: string };

// SHA-256 of "grace.hopper@example.com": the stored email lowercased, as the anchor hashes it.
const AVATAR = "https://www.gravatar.com/avatar/a460d7fa831915bb17b55b9151a5278e916f2de6480dc2171845c4b305620428?d=404";

beforeAll(async () => {
  ctx = await createTestContext();
  baseUrl = await listen(ctx);
  organizationId = (await createOrganization(ctx.deps)).id;
  const customer = await createCustomer(ctx.deps, organizationId, { email: "Grace.Hopper@Example.COM" });
  orderId = (await createOrder(ctx.deps, organizationId, { customer })).id;
  licenseKey = await createLicenseKey(ctx.deps, organizationId, customer.id);
  token = await createOrganizationToken(ctx.deps, organizationId, ["orders:read", "license_keys:read", "license_keys:write"]);
});
afterAll(() => ctx.close());

describe("customer avatars through the official clients", () => {
  it("decode with @polar-sh/sdk 0.x", async () => {
    const polar = new LegacyPolar({ accessToken: token, serverURL: baseUrl });
    const order = await polar.orders.get({ id: orderId });
    expect(order.customer.avatarUrl).toBe(AVATAR);
    const key = await polar.licenseKeys.get({ id: licenseKey.id });
    expect(key.customer.avatarUrl).toBe(AVATAR);
    const validated = await polar.licenseKeys.validate({ key: licenseKey.key, organizationId });
    expect(validated.customer.avatarUrl).toBe(AVATAR);
    const portalValidated = await polar.customerPortal.licenseKeys.validate({ key: licenseKey.key, organizationId });
    expect(portalValidated.customer.avatarUrl).toBe(AVATAR);
  });

  it("decode with @polar-sh/sdk/2026-04", async () => {
    const polar = createPolar({ accessToken: token, baseUrl });
    expect((await polar.orders.get(orderId)).customer.avatar_url).toBe(AVATAR);
    expect((await polar.licenseKeys.get(licenseKey.id)).customer.avatar_url).toBe(AVATAR);
    const validated = await polar.licenseKeys.validate({ key: licenseKey.key, organization_id: organizationId });
    expect(validated.customer.avatar_url).toBe(AVATAR);
  });
});
