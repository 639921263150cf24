import type { Deps } from "./context.ts";
import type { Principal } from "./http/auth.ts";
import { buildServices } from "./services.ts";

/** The seed acts as the instance owner: every scope, any organization. */
const OWNER: Principal = { kind: "user", tokenId: "seed", scopes: "all" };

/**
 * A demo organization with a product, a discount, an open checkout and a token to read it. Every
 * object is made through its service, as an API call would make it: the checkout has its expiry
 * scheduled, its `checkout.created` event recorded and its tax computed. The organization is a
 * French company registered for the EU One-Stop Shop, and the checkout's buyer is in Germany, so
 * the demo shows German VAT being charged (docs/decisions.md, "Tax collected only where the seller
 * is registered").
 */
export async function seedDemo(deps: Deps) {
  const services = buildServices(deps);
  const suffix = Math.random().toString(36).slice(2, 8);
  const organization = await services.organizations.create({ name: "Demo Store", slug: `demo-${suffix}` });
  const scope = [organization.id] as [string];
  await services.organizations.updateLegalDetails(organization.id, scope, {
    registered_name: "Demo Store SAS",
    address: { line1: "1 rue de la Paix", postal_code: "75002", city: "Paris", country: "FR" },
    tax_registrations: [{ country: "FR", scheme: "eu_oss", number: "FR40303265045" }],
  });
  const benefit = await services.benefits.create(OWNER, {
    organization_id: organization.id,
    type: "license_keys",
    description: "License key",
    properties: { prefix: "DEMO", expires: null, activations: { limit: 3, enable_customer_admin: true }, limit_usage: null },
  });
  const created = await services.products.create(OWNER, {
    organization_id: organization.id,
    name: "Pro license",
    description: "One year of updates",
    recurring_interval: null,
    prices: [{ amount_type: "fixed", price_currency: "usd", price_amount: 4900 }],
  });
  const product = await services.products.setBenefits(created.id, { benefits: [benefit.id] }, scope);
  const discount = await services.discounts.create(OWNER, {
    organization_id: organization.id,
    name: "Launch 20%",
    code: "LAUNCH20",
    type: "percentage",
    duration: "once",
    basis_points: 2000,
    max_redemptions: 100,
  });
  const checkout = await services.checkouts.create(
    { products: [product.id], discount_id: discount.id, customer_billing_address: { country: "DE" } },
    scope,
  );
  const { token } = await services.accessTokens.createOrganizationToken({
    organization_id: organization.id,
    comment: "demo",
    scopes: ["checkouts:read", "checkouts:write", "products:read", "orders:read", "events:write"],
  });
  return { organization_id: organization.id, product_id: product.id, discount_id: discount.id, checkout_id: checkout.id, token };
}
