import type { Deps } from "./context.ts";
import type { TokenAuthenticator } from "./kit/auth.ts";
import { cachePrincipals } from "./kit/auth-cache.ts";
import { createCheckoutService } from "./modules/checkouts/checkouts.service.ts";
import { createCheckoutClientService } from "./modules/checkouts/checkouts.client.service.ts";
import { createEventService } from "./modules/events/events.service.ts";
import { createAccessTokenService } from "./modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "./modules/organizations/organizations.service.ts";
import { createCustomerService } from "./modules/customers/customers.service.ts";
import { createCustomerSessionService } from "./modules/customers/customer-sessions.service.ts";
import { createDiscountService } from "./modules/discounts/discounts.service.ts";
import { createProductService } from "./modules/products/products.service.ts";
import { createBenefitService } from "./modules/products/benefits.service.ts";
import { createWebhookService } from "./modules/webhooks/webhooks.service.ts";
import { createLicenseKeyService } from "./modules/license-keys/license-keys.service.ts";
import { createPortalCustomerService } from "./modules/customer-portal/customers.service.ts";
import { createOrderService } from "./modules/orders/orders.service.ts";
import { createPortalOrderService } from "./modules/customer-portal/orders.service.ts";
import { createOrderDocumentService } from "./modules/orders/order-documents.service.ts";
import { createBlobStore } from "./storage/index.ts";

/** Every feature service, wired once per application. */
export function buildServices(deps: Deps) {
  const storage = createBlobStore(deps);
  const accessTokens = createAccessTokenService(deps);
  const customerSessions = createCustomerSessionService(deps);
  const authenticators: Map<string, TokenAuthenticator> = new Map([...accessTokens.authenticators()]);
  for (const [prefix, authenticate] of customerSessions.authenticators()) authenticators.set(prefix, authenticate);
  for (const [prefix, authenticate] of authenticators) authenticators.set(prefix, cachePrincipals(authenticate, { ttlMs: deps.config.authCacheMs, maxEntries: 10_000, now: deps.now }));
  return {
    authenticators,
    accessTokens,
    organizations: createOrganizationService(deps),
    checkouts: createCheckoutService(deps),
    customers: createCustomerService(deps),
    customerSessions,
    discounts: createDiscountService(deps),
    products: createProductService(deps),
    benefits: createBenefitService(deps),
    checkoutClient: createCheckoutClientService(deps),
    events: createEventService(deps),
    webhooks: createWebhookService(deps),
    licenseKeys: createLicenseKeyService(deps),
    portalCustomers: createPortalCustomerService(deps),
    orders: createOrderService(deps),
    portalOrders: createPortalOrderService(deps),
    storage,
    orderDocuments: createOrderDocumentService(deps, storage),
  };
}
export type Services = ReturnType<typeof buildServices>;
