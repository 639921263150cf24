import type { MemberRole, Principal } from "../../http/auth.ts";

/**
 * The customer a portal session acts on. A member session acts on its member's customer; the
 * routes accept only these two kinds, so anything else is a wiring error.
 */
export function portalCustomerOf(principal: Principal): { organizationId: string; customerId: string } {
  if (principal.kind !== "customer" && principal.kind !== "member") throw new Error("portal route without a session principal");
  return { organizationId: principal.organizationId, customerId: principal.customerId };
}

export interface PortalMember {
  organizationId: string;
  customerId: string;
  memberId: string;
  memberRole: MemberRole;
}

/** The member behind a member session, for the routes that accept member sessions only. */
export function portalMemberOf(principal: Principal): PortalMember {
  if (principal.kind !== "member") throw new Error("member route without a member session");
  return {
    organizationId: principal.organizationId,
    customerId: principal.customerId,
    memberId: principal.memberId,
    memberRole: principal.memberRole,
  };
}

/** The session itself (which table, which row, whose), for the routes that describe it. */
export type PortalSession = Extract<Principal, { kind: "customer" | "member" }>;

export function portalSessionOf(principal: Principal): PortalSession {
  if (principal.kind !== "customer" && principal.kind !== "member") throw new Error("portal route without a session principal");
  return principal;
}
