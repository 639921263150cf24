import { Polar as LegacyPolar } from "polar-sdk-legacy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, listen, type TestContext } from "../helpers/context.ts";
import {
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  registerForTax,
} from "../helpers/factories.ts";
import { licensedProduct, payCheckout } from "../modules/emails/email-helpers.ts";
import { buyThroughCheckout } from "../modules/subscriptions/subscription-helpers.ts";

/**
 * The answers the 0.x client line (`polar-sdk-legacy`, the framework adapters' `^0.47`) reads most,
 * decoded by it against a listening server: its zod schemas throw on a missing required key or a null
 * where they want a value, on the whole answer (anchor-behaviour-wave3 §7). The raw answers carry what
 * its older releases require and the reference does not list: `metadata` on a grant's benefit,
 * `notification_settings` on an organization, a non-null `avatar_url` on every customer.
 */
let ctx: TestContext;
let baseUrl: string;
let organizationId: string;
let token: string;
let customerId: string;
let customerSession: string;
let orderId: string;
let subscriptionId: string;

const EMAIL = "grace.hopper@example.com";

beforeAll(async () => {
  ctx = await createTestContext();
  baseUrl = await listen(ctx);
  organizationId = (await createOrganization(ctx.deps)).id;
  await registerForTax(ctx.deps, organizationId);
  const buying = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write"]);
  // A one-time licence whose benefit has metadata, and a plan whose custom benefit has none.
  const licence = await licensedProduct(ctx, organizationId, "Licence");
  await ctx.deps.db
    .updateTable("benefits")
    .set({ metadata: JSON.stringify({ tier: "pro", seats: 3 }) })
    .where("organization_id", "=", organizationId)
    .where("type", "=", "license_keys")
    .execute();
  const plan = await createProduct(ctx.deps, organizationId, {
    product: { name: "Plan", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1_500 }],
    benefits: [{ type: "custom", description: "Support", properties: { note: "Write to us" } }],
  });
  const { order } = await payCheckout(ctx, buying, licence.product.id, { email: EMAIL });
  orderId = order.id;
  customerId = order.customer_id;
  subscriptionId = (await buyThroughCheckout(ctx, buying, plan.product.id, { buyer: { customer_email: EMAIL } })).checkout.subscription_id;
  customerSession = await createCustomerSessionToken(ctx.deps, customerId);
  token = await createOrganizationToken(ctx.deps, organizationId, [
    "organizations:read",
    "customers:read",
    "orders:read",
    "subscriptions:read",
  ]);
});
afterAll(() => ctx.close());

const raw = async (path: string, bearer: string) =>
  (await ctx.request({ method: "GET", url: path, token: bearer })).json<Record<string, unknown> & { items?: Record<string, unknown>[] }>();

describe("@polar-sh/sdk 0.x decodes", () => {
  it("the portal's benefit grants, each benefit with its metadata", async () => {
    const legacy = new LegacyPolar({ serverURL: baseUrl });
    const page = await legacy.customerPortal.benefitGrants.list({ customerSession }, {});
    const types = page.result.items.map((grant) => grant.benefit.type).sort();
    expect(types).toEqual(["custom", "license_keys"]);
    for (const grant of page.result.items) expect(grant.customer.id).toBe(customerId);

    const listed = (await raw("/v1/customer-portal/benefit-grants/", customerSession)).items!;
    const metadataOf = (type: string) =>
      (listed.find((grant) => (grant.benefit as { type: string }).type === type)!.benefit as { metadata: unknown }).metadata;
    expect(metadataOf("license_keys")).toEqual({ tier: "pro", seats: 3 });
    expect(metadataOf("custom")).toEqual({});
  });

  it("the organization, with the hidden notification settings", async () => {
    const legacy = new LegacyPolar({ accessToken: token, serverURL: baseUrl });
    expect((await legacy.organizations.get({ id: organizationId })).id).toBe(organizationId);
    expect((await raw(`/v1/organizations/${organizationId}`, token)).notification_settings).toEqual({
      new_order: true,
      new_subscription: true,
      chargeback_prevention: true,
      subscription_renewal: false,
      subscription_cancellation: true,
      dispute_opened: true,
      webhook_endpoint_disabled: true,
    });
  });

  it("the customer, its state, an order and a subscription, each customer with an avatar", async () => {
    const legacy = new LegacyPolar({ accessToken: token, serverURL: baseUrl });
    const customer = await legacy.customers.get({ id: customerId });
    expect(customer.avatarUrl).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?d=404$/);
    const state = await legacy.customers.getState({ id: customerId });
    expect(state.avatarUrl).toBe(customer.avatarUrl);
    expect(state.activeSubscriptions.map((subscription) => subscription.id)).toEqual([subscriptionId]);
    expect(state.grantedBenefits).toHaveLength(2);
    const order = await legacy.orders.get({ id: orderId });
    expect(order.customer.avatarUrl).toBe(customer.avatarUrl);
    const subscription = await legacy.subscriptions.get({ id: subscriptionId });
    expect(subscription.customer.avatarUrl).toBe(customer.avatarUrl);
  });
});
