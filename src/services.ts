import type { Deps } from "./context.ts";
import type { TokenAuthenticator } from "./kit/auth.ts";
import { createCheckoutService } from "./modules/checkouts/checkouts.service.ts";
import { createAccessTokenService } from "./modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "./modules/organizations/organizations.service.ts";
import { createWebhookService } from "./modules/webhooks/webhooks.service.ts";

/** Every feature service, wired once per application. */
export function buildServices(deps: Deps) {
  const accessTokens = createAccessTokenService(deps);
  const authenticators: Map<string, TokenAuthenticator> = new Map([...accessTokens.authenticators()]);
  return {
    authenticators,
    accessTokens,
    organizations: createOrganizationService(deps),
    checkouts: createCheckoutService(deps),
    webhooks: createWebhookService(deps),
  };
}
export type Services = ReturnType<typeof buildServices>;
