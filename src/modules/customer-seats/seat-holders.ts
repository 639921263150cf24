import type { Executor } from "../../db/database.ts";
import { BadRequest, ResourceNotFound, valueError } from "../../http/errors.ts";
import { addMember, findLiveCustomer, findMemberForUpdate, updateCustomer } from "../customers/customers.steps.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";

/** How an assignment names the seat's holder. */
export interface HolderInput {
  email?: string | null;
  customer_id?: string | null;
  external_customer_id?: string | null;
  member_id?: string | null;
  external_member_id?: string | null;
}

const MEMBER_NOT_FOUND = "Member not found";

/** The identifier rules the hosted service checks on the body (422s): one kind of identifier, and a member id alone. */
function checkIdentifiers(input: HolderInput): void {
  const byCustomer = Boolean(input.customer_id || input.external_customer_id);
  const byMember = Boolean(input.member_id || input.external_member_id);
  if (byCustomer && byMember) throw valueError(["body"], "Customer and member identifiers cannot be combined.", input);
  if (input.member_id && input.email) throw valueError(["body"], "member_id cannot be combined with email.", input);
  if (!byCustomer && !byMember && !input.email) {
    throw valueError(["body"], "One of email, customer_id, external_customer_id, member_id or external_member_id is required.", input);
  }
}

/** Adds the holder to the billing customer's team (a buyer of seats is a team: an individual is upgraded). */
async function joinTeam(trx: Executor, billing: CustomerRow, email: string, externalId: string | null, now: Date) {
  const team = billing.type === "team" ? billing : await updateCustomer(trx, billing.id, { type: "team", modified_at: now });
  return addMember(trx, team, { email, external_id: externalId, role: "member" }, now);
}

/**
 * The member of the billing customer (locked by the caller) who will hold the seat: named by id or
 * external id, or by an email (its own, or a customer's of the organization), found or added.
 */
export async function resolveHolder(
  trx: Executor,
  organization: OrganizationRow,
  billing: CustomerRow,
  input: HolderInput,
  now: Date,
): Promise<{ id: string; email: string }> {
  checkIdentifiers(input);
  if (input.member_id) {
    const member = await findMemberForUpdate(trx, billing.id, { id: input.member_id });
    if (!member) throw new ResourceNotFound(MEMBER_NOT_FOUND);
    return member;
  }
  if (input.external_member_id) {
    const member = await findMemberForUpdate(trx, billing.id, { externalId: input.external_member_id });
    if (member) {
      if (input.email && input.email.toLowerCase() !== member.email.toLowerCase()) {
        throw new BadRequest("The member with this external ID has a different email.");
      }
      return member;
    }
    if (!input.email) throw new ResourceNotFound(MEMBER_NOT_FOUND);
    return joinTeam(trx, billing, input.email, input.external_member_id, now);
  }
  let email = input.email ?? null;
  if (input.customer_id || input.external_customer_id) {
    const where = input.customer_id ? { id: input.customer_id } : { externalId: input.external_customer_id! };
    const customer = await findLiveCustomer(trx, organization.id, where);
    if (!customer) throw new ResourceNotFound("Customer not found");
    if (!customer.email) throw new BadRequest("The customer has no email to invite.");
    email = customer.email;
  }
  return joinTeam(trx, billing, email!, null, now);
}
