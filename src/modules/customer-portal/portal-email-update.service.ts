import type { Deps } from "../../context.ts";
import { NotPermitted, ResourceNotFound, valueError } from "../../http/errors.ts";
import {
  EMAIL_UPDATE_TTL_MS,
  applyEmailUpdate,
  emailTakenInOrganization,
  emailUpdateIsLive,
  issueEmailUpdate,
} from "../customers/customer-email-updates.steps.ts";
import { findCustomerForUpdate } from "../customers/customers.steps.ts";
import { customerPortalUrl } from "../customers/portal-sign-ins.steps.ts";
import { recordEmail, renderCustomerEmailChanged, renderCustomerEmailUpdate } from "../emails/emails.steps.ts";
import { toOrganization } from "../organizations/organizations.mapper.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { CustomerEmailUpdateInvalidOrExpired } from "./portal-email-update.errors.ts";
import type { CustomerEmailUpdateRequest, CustomerEmailUpdateVerifyResponse } from "./portal-email-update.schemas.ts";
import type { portalCustomerOf } from "./portal-session.ts";

/** Where the verification email sends the customer: the portal page that verifies the token. */
export const VERIFY_EMAIL_PATH = "/verify-email";

const ALREADY_IN_USE = "This email address is already in use.";

const brandOf = (organization: OrganizationRow) => ({ name: organization.name, logoUrl: organization.avatar_url });

/** A portal customer changing their email: asked for (`request`), the emailed token checked, then verified. */
export function createPortalEmailUpdateService(deps: Deps) {
  return {
    /**
     * Emails a link with a token (30 minutes) to the new address, replacing the customer's pending
     * requests. Refused when the organization does not allow it, for team customers, for the current
     * address, and for an address another customer of the organization has.
     */
    async request(session: ReturnType<typeof portalCustomerOf>, input: CustomerEmailUpdateRequest): Promise<null> {
      const organization = await findOrganization(deps.db, session.organizationId, null);
      if (!organization) throw new ResourceNotFound();
      if (toOrganization(organization).customer_portal_settings.customer?.allow_email_change !== true)
        throw new NotPermitted("Email changes are not enabled for this organization.");
      const now = deps.now();
      await deps.db.transaction().execute(async (trx) => {
        const customer = await findCustomerForUpdate(trx, session.customerId, [session.organizationId]);
        if (!customer) throw new ResourceNotFound();
        if (customer.type === "team") throw valueError(["body", "email"], "Only individual customers can change their email.", input.email);
        if (customer.email.toLowerCase() === input.email.toLowerCase())
          throw valueError(["body", "email"], "New email is the same as your current email.", input.email);
        if (await emailTakenInOrganization(trx, customer, input.email)) throw valueError(["body", "email"], ALREADY_IN_USE, input.email);
        const { token, row } = await issueEmailUpdate(trx, deps, { customer, email: input.email, now });
        const verifyUrl = new URL(`${customerPortalUrl(deps.config, organization.slug)}${VERIFY_EMAIL_PATH}`);
        verifyUrl.searchParams.set("token", token);
        await recordEmail(trx, deps.config.email, {
          organization,
          audience: { to: "customer", kind: "account" },
          dedupeKey: `customer_email_update:${row.id}`,
          template: "customer_email_update",
          locale: customer.locale,
          recipient: input.email,
          rendered: renderCustomerEmailUpdate({
            organization: brandOf(organization),
            recipient: input.email,
            locale: customer.locale,
            verifyUrl: verifyUrl.toString(),
            validMinutes: EMAIL_UPDATE_TTL_MS / 60_000,
          }),
          now,
        });
      });
      return null;
    },

    /** Whether the token opens a live request (401 otherwise), without using it. */
    async check(token: string): Promise<void> {
      if (!(await emailUpdateIsLive(deps.db, deps, token, deps.now()))) throw new CustomerEmailUpdateInvalidOrExpired();
    },

    /**
     * Uses the token: the customer takes the new address, verified, the previous address is told,
     * and a new portal session is returned (existing sessions stay). An address taken meanwhile
     * discards the request (422), as does an unknown, expired or used token (401).
     */
    async verify(token: string): Promise<CustomerEmailUpdateVerifyResponse> {
      const now = deps.now();
      const outcome = await deps.db.transaction().execute(async (trx) => {
        const result = await applyEmailUpdate(trx, deps, token, now);
        if (result.kind !== "changed") return result;
        const { organization } = result;
        await recordEmail(trx, deps.config.email, {
          organization,
          audience: { to: "customer", kind: "account" },
          dedupeKey: `customer_email_changed:${result.request.id}`,
          template: "customer_email_changed",
          locale: result.customer.locale,
          recipient: result.previousEmail,
          rendered: renderCustomerEmailChanged({
            organization: brandOf(organization),
            recipient: result.previousEmail,
            locale: result.customer.locale,
            newEmail: result.customer.email,
          }),
          now,
        });
        return result;
      });
      // Thrown after the commit, which keeps the request discarded.
      if (outcome.kind === "invalid") throw new CustomerEmailUpdateInvalidOrExpired();
      if (outcome.kind === "taken") throw valueError(["body", "token"], ALREADY_IN_USE, token);
      return { token: outcome.sessionToken };
    },
  };
}
export type PortalEmailUpdateService = ReturnType<typeof createPortalEmailUpdateService>;
