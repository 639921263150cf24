import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { findOwner } from "../customers/customers.steps.ts";
import { customerPortalUrl } from "../customers/portal-sign-ins.steps.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { recordEmail, renderSeatInvitation } from "../emails/emails.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { CustomerSeatRow } from "./customer-seats.table.ts";

/** The portal page where an invitation is claimed, its token in the query. */
export const CLAIM_PATH = "/claim";
const TTL_HOURS = 24;

/**
 * Writes the invitation email of a pending seat in the caller's transaction, to the holder, in the
 * billing customer's language. One email per token: a resend mints a new token, hence a new key.
 */
export async function sendInvitation(
  trx: Executor,
  deps: Pick<Deps, "config">,
  input: { organization: OrganizationRow; billing: CustomerRow; seat: CustomerSeatRow; token: string; productName: string; now: Date },
): Promise<void> {
  const { organization, billing, seat } = input;
  if (!seat.email || !seat.invitation_token_hash) return;
  const inviter = billing.email ?? (await findOwner(trx, billing.id))?.email ?? billing.name ?? organization.name;
  const claimUrl = new URL(`${customerPortalUrl(deps.config, organization.slug)}${CLAIM_PATH}`);
  claimUrl.searchParams.set("token", input.token);
  const rendered = renderSeatInvitation({
    organization: { name: organization.name, logoUrl: organization.avatar_url },
    recipient: seat.email,
    locale: billing.locale,
    productName: input.productName,
    inviter,
    claimUrl: claimUrl.toString(),
    validHours: TTL_HOURS,
  });
  await recordEmail(trx, deps.config.email, {
    organization,
    audience: { to: "customer", kind: "invitation" },
    dedupeKey: `seat_invitation:${seat.id}:${seat.invitation_token_hash.slice(0, 16)}`,
    template: "seat_invitation",
    locale: billing.locale,
    recipient: seat.email,
    rendered,
    now: input.now,
  });
}
