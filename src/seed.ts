import type { Deps } from "./context.ts";
import { openCheckout } from "./modules/checkouts/checkouts.factory.ts";
import { insertDiscount } from "./modules/discounts/discounts.repository.ts";
import { createAccessTokenService } from "./modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "./modules/organizations/organizations.service.ts";
import { attachBenefits, insertBenefit, insertPrices, insertProduct } from "./modules/products/products.repository.ts";

/** A demo organization with a product, a discount, an open checkout and a token to read it. */
export async function seedDemo(deps: Deps) {
  const suffix = Math.random().toString(36).slice(2, 8);
  const organization = await createOrganizationService(deps).create({ name: "Demo Store", slug: `demo-${suffix}` });
  return deps.db.transaction().execute(async (trx) => {
    const product = await insertProduct(trx, {
      organization_id: organization.id,
      name: "Pro license",
      description: "One year of updates",
      recurring_interval: null,
      recurring_interval_count: null,
      trial_interval: null,
      trial_interval_count: null,
      meter_interval: null,
      meter_interval_count: null,
      modified_at: null,
    });
    const prices = await insertPrices(trx, [
      { organization_id: organization.id, product_id: product.id, amount_type: "fixed", price_currency: "usd", price_amount: 4900 },
    ]);
    const benefit = await insertBenefit(trx, {
      organization_id: organization.id,
      type: "license_keys",
      description: "License key",
      properties: JSON.stringify({ prefix: "DEMO", expires: null, activations: { limit: 3, enable_customer_admin: true }, limit_usage: null }),
      modified_at: null,
    });
    await attachBenefits(trx, organization.id, product.id, [benefit.id]);
    const discount = await insertDiscount(trx, {
      organization_id: organization.id,
      name: "Launch 20%",
      code: "LAUNCH20",
      type: "percentage",
      duration: "once",
      duration_in_months: null,
      basis_points: 2000,
      amounts: null,
      starts_at: null,
      ends_at: null,
      max_redemptions: 100,
      modified_at: null,
      deleted_at: null,
    });
    const checkout = await openCheckout(trx, deps, { organizationId: organization.id, products: [{ product, prices }], discount });
    const { token } = await createAccessTokenService({ ...deps, db: trx }).createOrganizationToken({
      organization_id: organization.id,
      comment: "demo",
      scopes: ["checkouts:read", "checkouts:write", "products:read", "orders:read", "events:write"],
    });
    return { organization_id: organization.id, product_id: product.id, discount_id: discount.id, checkout_id: checkout.id, token };
  });
}
