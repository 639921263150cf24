import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal, TokenAuthenticator } from "../../kit/auth.ts";
import { valueError } from "../../kit/errors.ts";
import { toIso, toIsoOrNull } from "../../kit/schema.ts";
import { TokenPrefix, generateToken, hasValidChecksum, hashToken } from "../../kit/tokens.ts";
import { findOrganization } from "../organizations/organizations.repository.ts";
import { toCustomer } from "./customers.mapper.ts";
import { findCustomer, findCustomerByExternalId } from "./customers.repository.ts";
import { findLiveCustomerSession, insertCustomerSession } from "./customer-sessions.repository.ts";
import type { CustomerSession, CustomerSessionCreate } from "./customer-sessions.schemas.ts";

export function createCustomerSessionService(deps: Deps) {
  const hash = (token: string) => hashToken(deps.secret, token);

  return {
    /** Opens a portal session for a customer of the caller's organizations; the token is returned once. */
    async create(input: CustomerSessionCreate, allowed: OrganizationScope): Promise<CustomerSession> {
      const customer =
        "customer_id" in input
          ? await findCustomer(deps.db, input.customer_id, allowed)
          : await findCustomerByExternalId(deps.db, input.external_customer_id, allowed);
      if (!customer) {
        const [field, value] =
          "customer_id" in input ? ["customer_id", input.customer_id] : ["external_customer_id", input.external_customer_id];
        throw valueError(["body", field], "Customer does not exist.", value);
      }
      const organization = await findOrganization(deps.db, customer.organization_id, null);
      if (!organization) throw valueError(["body", "customer_id"], "Customer does not exist.", customer.id);
      const token = generateToken(TokenPrefix.customerSession);
      const now = deps.now();
      const row = await insertCustomerSession(deps.db, {
        organization_id: customer.organization_id,
        customer_id: customer.id,
        token_hash: hash(token),
        created_at: now,
        modified_at: null,
        expires_at: new Date(now.getTime() + deps.config.customerSessionTtlSeconds * 1000),
        return_url: input.return_url ?? null,
      });
      const portal = new URL(`${deps.config.checkoutBaseUrl}/${organization.slug}/portal`);
      portal.searchParams.set("customer_session_token", token);
      portal.searchParams.set("email", customer.email);
      return {
        created_at: toIso(row.created_at),
        modified_at: toIsoOrNull(row.modified_at),
        id: row.id,
        token,
        expires_at: toIso(row.expires_at),
        return_url: row.return_url,
        customer_portal_url: portal.toString(),
        customer_id: customer.id,
        customer: toCustomer(customer),
      };
    },

    /** Bearer-token resolver for `polar_cst_` tokens. */
    authenticators(): Map<string, TokenAuthenticator> {
      const customerSession = async (token: string): Promise<Principal | null> => {
        if (!hasValidChecksum(token, TokenPrefix.customerSession)) return null;
        const row = await findLiveCustomerSession(deps.db, hash(token), deps.now());
        return row
          ? {
              kind: "customer",
              sessionId: row.id,
              organizationId: row.organization_id,
              customerId: row.customer_id,
              clockOffsetMs: row.clock_offset_ms,
            }
          : null;
      };
      return new Map([[TokenPrefix.customerSession, customerSession]]);
    },
  };
}
export type CustomerSessionService = ReturnType<typeof createCustomerSessionService>;
