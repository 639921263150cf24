import type { ProcessorCustomer } from "../../adapters/payment-processors/payment-processor.ts";
import type { Executor } from "../../db/database.ts";
import type { MemberRole, Principal } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { findLiveCustomer, rememberProcessorCustomer } from "../customers/customers.steps.ts";

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

/** The session's customer as the payment processor knows them (Stripe needs its customer to save a card). */
export async function processorCustomerOfSession(
  db: Executor,
  session: { organizationId: string; customerId: string },
): Promise<ProcessorCustomer> {
  const customer = await findLiveCustomer(db, session.organizationId, { id: session.customerId });
  if (!customer) throw new ResourceNotFound();
  return { reference: customer.processor_customer_reference, email: customer.email, name: customer.name };
}

/** A processor customer a setup made for the session's customer (`reference`) is kept for their next payments. */
export async function keepProcessorCustomer(
  db: Executor,
  session: { organizationId: string; customerId: string },
  reference: string | null,
) {
  const customer = await findLiveCustomer(db, session.organizationId, { id: session.customerId });
  if (customer) await rememberProcessorCustomer(db, customer, reference);
}
