import type { Executor } from "../../db/database.ts";
import type { MemberRole } from "../../http/auth.ts";
import { NotPermitted, valueError } from "../../http/errors.ts";
import { uniqueViolation } from "../../http/pg-errors.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { CustomerRow } from "./customers.table.ts";
import { toMember } from "./members.mapper.ts";
import * as repo from "./members.repository.ts";
import type { Member } from "./members.schemas.ts";
import type { MemberRow } from "./members.table.ts";

/**
 * The changes to a customer's members, each on the caller's transaction with the customer row
 * already locked (`findCustomerForUpdate`), so that two requests on one customer's team take
 * turns: the one-owner and one-member-per-individual rules hold under parallel requests, and the
 * partial unique indexes stay the last arbiter. Each change records its `member.*` event.
 */

const flag = (organization: Pick<OrganizationRow, "feature_settings">, name: string) => organization.feature_settings[name] === true;

/** Members exist for an organization with the member model or seat-based pricing (the hosted service's behaviour notes, section 3). */
export const memberManagementEnabled = (organization: Pick<OrganizationRow, "feature_settings">) =>
  flag(organization, "member_model_enabled") || flag(organization, "seat_based_pricing_enabled");

/** Only the member model turns `POST /v1/customer-sessions/` into member sessions. */
export const memberSessionsEnabled = (organization: Pick<OrganizationRow, "feature_settings">) =>
  flag(organization, "member_model_enabled");

export const ONLY_OWNER_DELETE = "Cannot delete the only owner. Transfer ownership first.";
const ONE_OWNER = "Cannot change role. Customer must have exactly one owner.";
const EMAIL_TAKEN = "A member with this email address already exists for this customer.";
const EXTERNAL_ID_TAKEN = "A member with this external ID already exists for this customer.";
const INDIVIDUAL_LIMIT = "Individual customers can only have one member (the owner). Upgrade to a team customer to add more members.";

export interface NewMember {
  email: string;
  name?: string | null;
  external_id?: string | null;
  role: MemberRole;
}

/** A race the pre-checks lost still answers as they would have: the unique indexes name the clash. */
async function guardClash<T>(work: () => Promise<T>, input: { email?: string | null; external_id?: string | null }): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const constraint = uniqueViolation(error);
    if (constraint === "members_customer_email_uq") throw valueError(["body", "email"], EMAIL_TAKEN, input.email);
    if (constraint === "members_customer_external_id_uq") throw valueError(["body", "external_id"], EXTERNAL_ID_TAKEN, input.external_id);
    throw error;
  }
}

async function record(trx: Executor, row: MemberRow, type: "member.created" | "member.updated" | "member.deleted", now: Date) {
  const member = toMember(row);
  await recordWebhookEvent(trx, { organizationId: row.organization_id, type, data: member, now });
  return member;
}

/**
 * Adds a member. A member with the same email (case-insensitive) is returned as it is, unchanged
 * and without an event; an individual customer takes no member beyond its first (the owner).
 */
export async function addMember(trx: Executor, customer: CustomerRow, input: NewMember, now: Date): Promise<Member> {
  const existing = await repo.findMember(trx, customer.id, { email: input.email });
  if (existing) return toMember(existing);
  if (customer.type === "individual" && (await repo.countLiveMembers(trx, customer.id)) > 0) throw new NotPermitted(INDIVIDUAL_LIMIT);
  if (input.external_id && (await repo.findMember(trx, customer.id, { externalId: input.external_id }))) {
    throw valueError(["body", "external_id"], EXTERNAL_ID_TAKEN, input.external_id);
  }
  const row = await guardClash(
    () =>
      repo.insertMember(trx, {
        organization_id: customer.organization_id,
        customer_id: customer.id,
        created_at: now,
        modified_at: null,
        email: input.email,
        name: input.name ?? null,
        external_id: input.external_id ?? null,
        role: input.role,
        deleted_at: null,
      }),
    input,
  );
  return record(trx, row, "member.created", now);
}

export interface MemberChange {
  name?: string | null;
  email?: string | null;
  role?: MemberRole | null;
}

/**
 * Applies a change. Making a member the owner hands ownership over (the previous owner becomes a
 * billing manager); the owner cannot step down otherwise. `member.updated` goes out for each member
 * whose fields changed; an unchanged member is returned as it is.
 */
export async function changeMember(trx: Executor, member: MemberRow, change: MemberChange, now: Date): Promise<Member> {
  const role = change.role ?? member.role;
  if (member.role === "owner" && role !== "owner") throw valueError(["body", "role"], ONE_OWNER, role);
  const email = change.email ?? member.email;
  if (email.toLowerCase() !== member.email.toLowerCase()) {
    const clash = await repo.findMember(trx, member.customer_id, { email });
    if (clash) throw valueError(["body", "email"], EMAIL_TAKEN, email);
  }
  const name = change.name === undefined ? member.name : change.name;
  if (role === member.role && email === member.email && name === member.name) return toMember(member);
  if (role === "owner" && member.role !== "owner") {
    const owner = await repo.findOwnerForUpdate(trx, member.customer_id);
    if (owner)
      await record(trx, await repo.updateMember(trx, owner.id, { role: "billing_manager", modified_at: now }), "member.updated", now);
  }
  const row = await guardClash(() => repo.updateMember(trx, member.id, { role, email, name, modified_at: now }), { email });
  return record(trx, row, "member.updated", now);
}

/** Removes a member (soft delete: its sessions stop authenticating); the owner stays until replaced. */
export async function removeMember(trx: Executor, member: MemberRow, now: Date): Promise<void> {
  if (member.role === "owner") throw valueError(["body"], ONLY_OWNER_DELETE);
  await record(trx, await repo.updateMember(trx, member.id, { deleted_at: now, modified_at: now }), "member.deleted", now);
}

/**
 * The owner a customer gets when members are enabled: from `owner` when given, else the customer's
 * own email, name and external ID. An existing owner is kept.
 */
export async function ensureOwner(
  trx: Executor,
  customer: CustomerRow,
  owner: { email: string; name?: string | null; external_id?: string | null } | null,
  now: Date,
): Promise<Member> {
  const existing = await repo.findOwnerForUpdate(trx, customer.id);
  if (existing) return toMember(existing);
  const source = owner ?? { email: customer.email, name: customer.name, external_id: customer.external_id };
  const row = await guardClash(
    () =>
      repo.insertMember(trx, {
        organization_id: customer.organization_id,
        customer_id: customer.id,
        created_at: now,
        modified_at: null,
        email: source.email,
        name: source.name ?? null,
        external_id: source.external_id ?? null,
        role: "owner",
        deleted_at: null,
      }),
    source,
  );
  return record(trx, row, "member.created", now);
}
