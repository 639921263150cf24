import type { Principal } from "../../kit/auth.ts";

/**
 * The customer a portal session acts on. A member session acts on its member's customer; the
 * routes accept only these two kinds, so anything else is a wiring error.
 */
export function portalCustomerOf(principal: Principal): { organizationId: string; customerId: string } {
  if (principal.kind !== "customer" && principal.kind !== "member") throw new Error("portal route without a session principal");
  return { organizationId: principal.organizationId, customerId: principal.customerId };
}
