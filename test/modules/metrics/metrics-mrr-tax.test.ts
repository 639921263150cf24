import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

/** anchor-behaviour-wave3.md §1.2: MRR is what a subscription bills net of inclusive tax. */
let ctx: TestContext;
let token: string;
let organizationId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  organizationId = (await createOrganization(ctx.deps)).id;
  await registerForTax(ctx.deps, organizationId);
  token = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write", "metrics:read"]);
  ctx.clock.set(new Date("2026-04-10T12:00:00Z"));
});
afterAll(() => ctx.close());

const GB = { customer_billing_address: { country: "GB", line1: "1 Lane", line2: null, city: "London", postal_code: "E1", state: null } };

async function mrrOf(price: number, taxBehavior: "inclusive" | "exclusive", buyer: Record<string, unknown> = GB) {
  const product = await createProduct(ctx.deps, organizationId, {
    product: { name: `Plan ${price} ${taxBehavior}`, recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: price, tax_behavior: taxBehavior }],
  });
  await buyThroughCheckout(ctx, token, product.product.id, { buyer });
  const response = await ctx.request({
    method: "GET",
    url: `/v1/metrics/?start_date=2026-04-10&end_date=2026-04-10&interval=day&metrics=monthly_recurring_revenue&product_id=${product.product.id}`,
    token,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ totals: { monthly_recurring_revenue: number } }>().totals.monthly_recurring_revenue;
}

describe("MRR net of inclusive tax", () => {
  it("takes 20 % VAT out of an inclusive price: 12.00 bills 10.00 a month", async () => {
    expect(await mrrOf(1200, "inclusive")).toBe(1000);
  });

  it("rounds the tax as the order's: 11.99 holds 2.00 (199.83 rounded), 12.03 holds 2.01 (200.5 away from zero)", async () => {
    expect(await mrrOf(1199, "inclusive")).toBe(999);
    expect(await mrrOf(1203, "inclusive")).toBe(1002);
  });

  it("keeps an exclusive price whole, the tax being on top", async () => {
    expect(await mrrOf(1200, "exclusive")).toBe(1200);
  });

  it("keeps an inclusive price whole where no tax was charged (a country the seller is not registered in)", async () => {
    const us = {
      customer_billing_address: { country: "US", line1: "1 Main St", line2: null, city: "Austin", postal_code: "78701", state: "TX" },
    };
    expect(await mrrOf(1200, "inclusive", us)).toBe(1200);
  });
});
