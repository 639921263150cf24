import type { Deps } from "../../context.ts";
import {
  SIGN_IN_CODE_TTL_MS,
  customerPortalUrl,
  deleteExpiredSignIns,
  issueSignIn,
  redeemSignIn,
  requesterKey,
  signInCustomers,
} from "../customers/portal-sign-ins.steps.ts";
import { recordEmail, renderPortalSignInCode } from "../emails/emails.steps.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import type { CustomerSessionCodeRequest } from "./portal-customer-session.schemas.ts";
import { CustomerSelectionRequired, CustomerSessionCodeInvalidOrExpired } from "./portal-sign-in.errors.ts";

/** Where the code email sends the customer: the portal page's code form. */
export const CODE_FORM_PATH = "/sign-in/code";

/**
 * Signing in to the portal by email: a code asked for (`request`), then exchanged for a session
 * (`authenticate`); and the single-use links of emails, exchanged at the portal page (`redeemLink`).
 * `client` is the caller's address: its wrong codes void the codes it asked for.
 */
export function createPortalSignInService(deps: Deps) {
  /** The customer a request signs in as; null when none (answered like a success, so nothing is probed). */
  async function requestedCustomer(organizationId: string, input: CustomerSessionCodeRequest) {
    const organization = await findOrganization(deps.db, organizationId, null);
    if (!organization) return null;
    const candidates = await signInCustomers(deps.db, organization, input.email);
    let chosen: (typeof candidates)[number] | undefined;
    if (input.customer_id) chosen = candidates.find(({ customer }) => customer.id === input.customer_id);
    else if (candidates.length > 1) throw new CustomerSelectionRequired(candidates.map(({ customer: { id, name } }) => ({ id, name })));
    else chosen = candidates[0];
    return chosen ? { organization, ...chosen } : null;
  }

  return {
    /**
     * Emails a 6-character code to a customer of the organization with this address. An unknown
     * organization, address or `customer_id` stores and sends nothing, and answers the same.
     */
    async request(input: CustomerSessionCodeRequest, client: string): Promise<null> {
      const found = await requestedCustomer(input.organization_id, input);
      if (!found) return null;
      const { organization, customer, email } = found;
      const now = deps.now();
      await deps.db.transaction().execute(async (trx) => {
        await deleteExpiredSignIns(trx, now);
        const { secret, row } = await issueSignIn(trx, deps, {
          kind: "code",
          organizationId: organization.id,
          customerId: customer.id,
          email,
          targetPath: null,
          requesterHash: requesterKey(deps, client),
          ttlMs: SIGN_IN_CODE_TTL_MS,
          now,
        });
        const rendered = renderPortalSignInCode({
          organization: { name: organization.name, logoUrl: organization.avatar_url },
          recipient: email,
          locale: customer.locale,
          code: secret,
          validMinutes: SIGN_IN_CODE_TTL_MS / 60_000,
          portalUrl: `${customerPortalUrl(deps.config, organization.slug)}${CODE_FORM_PATH}`,
        });
        await recordEmail(trx, deps.config.email, {
          organization,
          audience: { to: "customer", kind: "sign_in" },
          dedupeKey: `customer_session_code:${row.id}`,
          template: "customer_session_code",
          locale: customer.locale,
          recipient: email,
          rendered,
          now,
        });
      });
      return null;
    },

    /** A session for a code, used once; `organizationId` binds it to one organization's portal (the portal page's form). */
    async authenticate(code: string, client: string, organizationId: string | null = null): Promise<{ token: string }> {
      const now = deps.now();
      const redeemed = await deps.db
        .transaction()
        .execute((trx) =>
          redeemSignIn(trx, deps, { kind: "code", secret: code, organizationId, requesterHash: requesterKey(deps, client), now }),
        );
      // Thrown after the commit, which keeps the wrong try counted.
      if (!redeemed) throw new CustomerSessionCodeInvalidOrExpired();
      return { token: redeemed.token };
    },

    /** A session for an email's sign-in link at one organization's portal, with where the link opens; null when it opens nothing. */
    async redeemLink(organizationId: string, token: string): Promise<{ token: string; targetPath: string } | null> {
      const now = deps.now();
      const redeemed = await deps.db
        .transaction()
        .execute((trx) => redeemSignIn(trx, deps, { kind: "link", secret: token, organizationId, requesterHash: null, now }));
      return redeemed ? { token: redeemed.token, targetPath: redeemed.signIn.target_path ?? "" } : null;
    },
  };
}
export type PortalSignInService = ReturnType<typeof createPortalSignInService>;
