import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { StoredAddress } from "../../schema/address.ts";
import type { Metadata } from "../../schema/primitives.ts";
import { TokenPrefix, generateToken, hashToken } from "../../values/tokens.ts";
import type { TaxId } from "../../adapters/tax-engine/tax-id.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { findLiveCustomer, lockBuyerIdentities } from "./customer-links.repository.ts";
import { buyerIdentities } from "./customer-lookups.ts";
import { insertCustomerSession } from "./customer-sessions.repository.ts";
import type { CustomerSessionRow } from "./customer-sessions.table.ts";
import { insertCustomer, updateCustomer } from "./customers.repository.ts";
import type { CustomerRow } from "./customers.table.ts";
import { ensureOwner, memberManagementEnabled } from "./member-changes.ts";
import { insertMemberSession } from "./member-sessions.repository.ts";
import type { MemberSessionRow } from "./member-sessions.table.ts";

// The customer operations other modules and flows run inside their own transaction.

export { findLiveCustomer };

/** A buyer as a purchase collected them: who they said they are and how they are billed. */
export interface Buyer {
  /** The customer the purchase was opened for, if any. */
  customerId: string | null;
  externalId: string | null;
  email: string;
  name: string | null;
  billingName: string | null;
  billingAddress: StoredAddress | null;
  /** Only a verified number: `[number, format]`. */
  taxId: TaxId | null;
  locale: string | null;
  metadata: Metadata;
  /** A seat-based purchase makes the buyer a team. */
  team: boolean;
}

/** The buyer's customer: the preset one, else the one with its external id, else the one with its email. */
async function findBuyer(
  db: Executor,
  organizationId: string,
  buyer: Pick<Buyer, "customerId" | "externalId" | "email">,
): Promise<CustomerRow | undefined> {
  return (
    (buyer.customerId ? await findLiveCustomer(db, organizationId, { id: buyer.customerId }) : undefined) ??
    (buyer.externalId ? await findLiveCustomer(db, organizationId, { externalId: buyer.externalId }) : undefined) ??
    (await findLiveCustomer(db, organizationId, { email: buyer.email }))
  );
}

/** The processor's customer already kept for this buyer, if the purchase will link to a customer that has one. */
export async function processorCustomerOfBuyer(
  db: Executor,
  organizationId: string,
  buyer: Pick<Buyer, "customerId" | "externalId" | "email">,
): Promise<string | null> {
  const customer = await findBuyer(db, organizationId, buyer);
  return customer?.processor_customer_reference ?? null;
}

/** Keeps the processor's customer of a buyer who had none (their first payment made it). */
export async function rememberProcessorCustomer(db: Executor, customer: CustomerRow, reference: string | null): Promise<void> {
  if (reference !== null && customer.processor_customer_reference === null)
    await updateCustomer(db, customer.id, { processor_customer_reference: reference });
}

/**
 * The buyer's customer, updated with what the purchase collected, else a new one; with its owner
 * member when the organization manages members. A transaction-scoped advisory lock on the email
 * keeps two purchases of one buyer from both creating a customer.
 */
export async function linkBuyer(db: Executor, organization: OrganizationRow, buyer: Buyer, now: Date): Promise<CustomerRow> {
  // Both identities are locked, in a fixed order, so purchases sharing either one queue up.
  await lockBuyerIdentities(db, organization.id, buyerIdentities(buyer.email, buyer.externalId));
  const existing = await findBuyer(db, organization.id, buyer);
  const billing = {
    billing_name: buyer.billingName,
    billing_address: buyer.billingAddress ? JSON.stringify(buyer.billingAddress) : null,
    tax_id: buyer.taxId ? JSON.stringify(buyer.taxId) : null,
  };
  const customer = existing
    ? await updateCustomer(db, existing.id, {
        modified_at: now,
        ...(buyer.billingName ? { billing_name: buyer.billingName } : {}),
        ...(buyer.billingAddress ? { billing_address: billing.billing_address } : {}),
        ...(buyer.taxId ? { tax_id: billing.tax_id } : {}),
        ...(existing.external_id === null && buyer.externalId ? { external_id: buyer.externalId } : {}),
        // A seat-based purchase makes the buyer a team, never the reverse (docs/decisions.md, "Team customers and members").
        ...(buyer.team ? { type: "team" as const } : {}),
      })
    : await insertCustomer(db, {
        created_at: now,
        modified_at: null,
        organization_id: organization.id,
        type: buyer.team ? "team" : "individual",
        email: buyer.email,
        external_id: buyer.externalId,
        name: buyer.name,
        ...billing,
        locale: buyer.locale,
        default_payment_method_id: null,
        metadata: JSON.stringify(buyer.metadata),
        deleted_at: null,
      });
  if (memberManagementEnabled(organization)) await ensureOwner(db, customer, null, now);
  return customer;
}

/** The first saved method becomes the customer's default, as the processor's customer would have it. */
export async function adoptFirstPaymentMethod(db: Executor, customer: CustomerRow, methodId: string): Promise<void> {
  if (customer.default_payment_method_id === null) await updateCustomer(db, customer.id, { default_payment_method_id: methodId });
}

/**
 * Opens a portal session for a customer, or for one of its members (a `polar_mst_` token), lasting
 * the configured session lifetime. The token is returned once: only its keyed hash is stored.
 */
export async function openCustomerSession(
  db: Executor,
  deps: Pick<Deps, "secret" | "config">,
  input: { organizationId: string; customerId: string; memberId: string | null; returnUrl: string | null; now: Date },
): Promise<{ token: string; session: CustomerSessionRow | MemberSessionRow }> {
  const token = generateToken(input.memberId ? TokenPrefix.memberSession : TokenPrefix.customerSession);
  const values = {
    organization_id: input.organizationId,
    customer_id: input.customerId,
    token_hash: hashToken(deps.secret, token),
    created_at: input.now,
    modified_at: null,
    expires_at: new Date(input.now.getTime() + deps.config.customerSessionTtlSeconds * 1000),
    return_url: input.returnUrl,
  };
  const session = input.memberId
    ? await insertMemberSession(db, { ...values, member_id: input.memberId })
    : await insertCustomerSession(db, values);
  return { token, session };
}
export {
  customersByIds,
  findCustomer,
  findCustomerForUpdate,
  firstUserEventAt,
  selectCustomersForRead,
  updateCustomer,
} from "./customers.repository.ts";
export { CUSTOMER_TAX_ID_FIELDS } from "./customers.service.ts";
export { retireCustomer } from "./customer-deletion.ts";
export { findVisibleCustomer, lockCustomerIdentities, lockVisibleCustomer, type CustomerTarget } from "./customer-lookups.ts";
export { addMember, changeMember, removeMember } from "./member-changes.ts";
export { findSessionSummary } from "./member-sessions.repository.ts";
export {
  countLiveMembers,
  findLiveMemberCustomers,
  findMemberForUpdate,
  findOwner,
  listCustomerMembers,
  membersByIds,
} from "./members.repository.ts";

// What the payments list reads of its customers (handed to it by services.ts).
export { customerEmailIn } from "./customers.repository.ts";

// What orders and subscriptions read of their customers.
export {
  customerContacts,
  customerEmailOf,
  customerJson,
  customerLocaleOf,
  defaultPaymentMethodId,
  findCustomerEvenDeleted,
} from "./customers.repository.ts";

// What events, meters and customer meters read of customers.
export {
  findLiveCustomerOrganizations,
  liveCustomerIdentities,
  liveCustomerIdOfExternalId,
  liveCustomerWhere,
  namedCustomerMatches,
  namedCustomerIn,
  selectCustomers,
} from "./customers.repository.ts";
