import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { NotPermitted, ResourceNotFound } from "../../http/errors.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { findCustomer, findCustomerByExternalId, findCustomerForUpdate } from "./customers.repository.ts";
import type { CustomerRow } from "./customers.table.ts";
import { addMember, changeMember, memberManagementEnabled, removeMember } from "./member-changes.ts";
import { toMember } from "./members.mapper.ts";
import * as repo from "./members.repository.ts";
import type { MemberRow } from "./members.table.ts";
import type { Member, MemberCreateFromCustomer, MemberListQuery, MemberUpdate } from "./members.schemas.ts";

/** A customer named by its id or its external id, as the member routes' two path families do. */
export type CustomerRef = { id: string } | { externalId: string };
/** A member named by id under a customer id, or by external id under a customer external id. */
export type MemberRef = { customerId: string; memberId: string } | { externalCustomerId: string; memberExternalId: string };

const CUSTOMER_NOT_FOUND = "Customer not found";
const MEMBER_NOT_FOUND = "Member not found";

/** The customer of a request, locked for the change: unknown, deleted and foreign customers answer 404. */
async function lockCustomer(trx: Executor, ref: CustomerRef, allowed: OrganizationScope): Promise<CustomerRow> {
  const id = "id" in ref ? ref.id : (await findCustomerByExternalId(trx, ref.externalId, allowed))?.id;
  const customer = id === undefined ? undefined : await findCustomerForUpdate(trx, id, allowed);
  if (!customer) throw new ResourceNotFound(CUSTOMER_NOT_FOUND);
  return customer;
}

const customerRefOf = (ref: MemberRef): CustomerRef =>
  "customerId" in ref ? { id: ref.customerId } : { externalId: ref.externalCustomerId };
const memberKeyOf = (ref: MemberRef): repo.MemberKey => ("memberId" in ref ? { id: ref.memberId } : { externalId: ref.memberExternalId });

/**
 * What a member's removal does to the modules built on customers, in its transaction (its seats
 * revoked with their grants): customers cannot import them, so services.ts hands it in.
 */
export type RevokeMemberSeats = (trx: Executor, memberId: string, now: Date) => Promise<unknown>;

export function createMemberService(deps: Deps, revokeMemberSeats: RevokeMemberSeats) {
  /** Runs a change on a member in one transaction, the customer locked first. */
  const onMember = <T>(ref: MemberRef, allowed: OrganizationScope, work: (trx: Executor, member: MemberRow) => Promise<T>) =>
    deps.db.transaction().execute(async (trx) => {
      const customer = await lockCustomer(trx, customerRefOf(ref), allowed);
      const member = await repo.findMemberForUpdate(trx, customer.id, memberKeyOf(ref));
      if (!member) throw new ResourceNotFound(MEMBER_NOT_FOUND);
      return work(trx, member);
    });

  return {
    /** Adds a member to a customer of an organization with members enabled (else 403). */
    async create(ref: CustomerRef, input: MemberCreateFromCustomer, allowed: OrganizationScope): Promise<Member> {
      return deps.db.transaction().execute(async (trx) => {
        const customer = await lockCustomer(trx, ref, allowed);
        const organization = await findOrganization(trx, customer.organization_id, null);
        if (!organization || !memberManagementEnabled(organization)) {
          throw new NotPermitted("Member management is not enabled for this organization");
        }
        return addMember(trx, customer, { ...input, role: input.role ?? "member" }, deps.now());
      });
    },

    async get(ref: MemberRef, allowed: OrganizationScope): Promise<Member> {
      const customer =
        "customerId" in ref
          ? await findCustomer(deps.db, ref.customerId, allowed)
          : await findCustomerByExternalId(deps.db, ref.externalCustomerId, allowed);
      const member = customer ? await repo.findMember(deps.db, customer.id, memberKeyOf(ref)) : undefined;
      if (!member) throw new ResourceNotFound(MEMBER_NOT_FOUND);
      return toMember(member);
    },

    update: (ref: MemberRef, input: MemberUpdate, allowed: OrganizationScope): Promise<Member> =>
      onMember(ref, allowed, (trx, member) => changeMember(trx, member, input, deps.now())),

    /** Removes a member, and revokes the seats they hold or are invited to. */
    remove: (ref: MemberRef, allowed: OrganizationScope): Promise<void> =>
      onMember(ref, allowed, async (trx, member) => {
        const now = deps.now();
        await removeMember(trx, member, now);
        await revokeMemberSeats(trx, member.id, now);
      }),

    async list(query: MemberListQuery, allowed: OrganizationScope): Promise<Page<Member>> {
      const filters = { customerId: query.customer_id, externalCustomerId: query.external_customer_id, role: query.role };
      const sorting = parseSorting(query.sorting);
      return paginate(
        query,
        () => repo.countMembers(deps.readDb, allowed, filters),
        async (offset, limit) => (await repo.listMembers(deps.readDb, allowed, filters, sorting, offset, limit)).map(toMember),
      );
    },
  };
}
export type MemberService = ReturnType<typeof createMemberService>;
