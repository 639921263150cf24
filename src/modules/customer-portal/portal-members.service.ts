import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { NotPermitted, ResourceNotFound, valueError } from "../../http/errors.ts";
import { paginate, type Page } from "../../schema/pagination.ts";
import { findCustomer, findCustomerForUpdate } from "../customers/customers.steps.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { addMember, changeMember, removeMember } from "../customers/customers.steps.ts";
import { countLiveMembers, findMemberForUpdate, listCustomerMembers } from "../customers/customers.steps.ts";
import { toMember } from "../customers/members.mapper.ts";
import { revokeMemberSeats } from "../customer-seats/customer-seats.steps.ts";
import type { Member } from "../customers/members.schemas.ts";
import type {
  CustomerPortalMember,
  CustomerPortalMemberCreate,
  CustomerPortalMemberListQuery,
  CustomerPortalMemberUpdate,
} from "./portal-members.schemas.ts";
import type { PortalMember } from "./portal-session.ts";

const TEAMS_ONLY = "Member management is only available for team customers. Purchase a seat-based product to enable team features.";

const toPortalMember = (member: Pick<Member, "created_at" | "modified_at" | "id" | "email" | "name" | "role">): CustomerPortalMember => ({
  created_at: member.created_at,
  modified_at: member.modified_at,
  id: member.id,
  email: member.email,
  name: member.name,
  role: member.role,
});

/** The portal's own team: the member routes require a team customer (the role was checked by the route). */
function requireTeam(customer: CustomerRow | undefined): CustomerRow {
  if (!customer) throw new ResourceNotFound();
  if (customer.type !== "team") throw new NotPermitted(TEAMS_ONLY);
  return customer;
}

export function createPortalMemberService(deps: Deps) {
  /** A change to the session's team, in one transaction with the customer locked (see member-changes.ts). */
  const onTeam = <T>(session: PortalMember, work: (trx: Executor, customer: CustomerRow) => Promise<T>) =>
    deps.db
      .transaction()
      .execute(async (trx) => work(trx, requireTeam(await findCustomerForUpdate(trx, session.customerId, [session.organizationId]))));

  const memberOfTeam = async (trx: Executor, customer: CustomerRow, id: string) => {
    const member = await findMemberForUpdate(trx, customer.id, { id });
    if (!member) throw new ResourceNotFound("Member not found.");
    return member;
  };

  return {
    async list(session: PortalMember, query: CustomerPortalMemberListQuery): Promise<Page<CustomerPortalMember>> {
      const customer = requireTeam(await findCustomer(deps.db, session.customerId, [session.organizationId]));
      return paginate(
        query,
        () => countLiveMembers(deps.db, customer.id),
        async (offset, limit) =>
          (await listCustomerMembers(deps.db, customer.id, offset, limit)).map((row) => toPortalMember(toMember(row))),
      );
    },

    /** Adds a team member; an email already in the team returns that member. Nobody is added as owner. */
    add: (session: PortalMember, input: CustomerPortalMemberCreate): Promise<CustomerPortalMember> =>
      onTeam(session, async (trx, customer) => {
        const role = input.role ?? "member";
        if (role === "owner") throw valueError(["body", "role"], "Cannot add a member with the owner role.", role);
        return toPortalMember(await addMember(trx, customer, { email: input.email, name: input.name, role }, deps.now()));
      }),

    /** Changes a member's name or role; nobody changes their own role, and only the owner hands ownership over. */
    update: (session: PortalMember, id: string, input: CustomerPortalMemberUpdate): Promise<CustomerPortalMember> =>
      onTeam(session, async (trx, customer) => {
        const member = await memberOfTeam(trx, customer, id);
        const role = input.role ?? member.role;
        if (role !== member.role && member.id === session.memberId) {
          throw valueError(["path", "id"], "You cannot modify your own role.", id);
        }
        if (role === "owner" && member.role !== "owner") {
          const actor = await findMemberForUpdate(trx, customer.id, { id: session.memberId });
          if (actor?.role !== "owner") throw valueError(["body", "role"], "Only the owner can transfer ownership.", role);
        }
        return toPortalMember(await changeMember(trx, member, { name: input.name, role }, deps.now()));
      }),

    /** Removes a member other than oneself, with the seats they hold or are invited to; the owner stays until ownership moves. */
    remove: (session: PortalMember, id: string): Promise<void> =>
      onTeam(session, async (trx, customer) => {
        if (id === session.memberId) throw valueError(["path", "id"], "You cannot remove yourself from the team.", id);
        const now = deps.now();
        await removeMember(trx, await memberOfTeam(trx, customer, id), now);
        await revokeMemberSeats(trx, id, now);
      }),
  };
}
export type PortalMemberService = ReturnType<typeof createPortalMemberService>;
