import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { findCustomerEvenDeleted } from "../modules/customers/customers.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import type { EmailBrand } from "../modules/emails/emails.steps.ts";
import { findOrganization } from "../modules/organizations/organizations.steps.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";

// Who a customer's email is from and to, as every flow that writes one reads them.

/** The seller an email speaks for: its name and logo. */
export const brandOf = (organization: Pick<OrganizationRow, "name" | "avatar_url">): EmailBrand => ({
  name: organization.name,
  logoUrl: organization.avatar_url,
});

/**
 * The organization's customer portal, where every customer email's button goes: the address of a
 * session's `customer_portal_url` without its token (no email carries a session), so the portal asks
 * the customer to sign in.
 */
export const customerPortalUrl = (
  deps: { config: Pick<Deps["config"], "checkoutBaseUrl"> },
  organization: Pick<OrganizationRow, "slug">,
): string => `${deps.config.checkoutBaseUrl}/${encodeURIComponent(organization.slug)}/portal`;

/**
 * The organization and the customer of an email about one of the customer's orders or
 * subscriptions; null when there is nobody to write to (a deleted customer, whose address is freed,
 * or one without an address).
 */
export async function emailParties(
  db: Executor,
  ids: { organizationId: string; customerId: string },
): Promise<{ organization: OrganizationRow; customer: CustomerRow } | null> {
  const customer = await findCustomerEvenDeleted(db, ids.customerId);
  if (customer.deleted_at !== null || !customer.email) return null;
  const organization = await findOrganization(db, ids.organizationId, null);
  if (!organization) throw new Error(`customer ${customer.id} without its organization`);
  return { organization, customer };
}
