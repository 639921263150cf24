import { sql } from "kysely";
import type { Deps } from "../../../src/context.ts";
import type { MemberRole } from "../../../src/http/auth.ts";
import { createCustomerSessionService } from "../../../src/modules/customers/customer-sessions.service.ts";
import { insertMember } from "../../../src/modules/customers/members.repository.ts";
import type { CustomerRow } from "../../../src/modules/customers/customers.table.ts";

let counter = 0;

/** Turns an organization's member model on (or seat-based pricing, which also enables members). */
export async function enableMembers(
  deps: Deps,
  organizationId: string,
  flag: "member_model_enabled" | "seat_based_pricing_enabled" = "member_model_enabled",
) {
  await deps.db
    .updateTable("organizations")
    .set({ feature_settings: sql`feature_settings || ${JSON.stringify({ [flag]: true })}::jsonb` })
    .where("id", "=", organizationId)
    .execute();
}

/** A member inserted directly, for tests that need a team in a given shape without the API. */
export async function createMember(
  deps: Deps,
  customer: Pick<CustomerRow, "id" | "organization_id">,
  role: MemberRole = "member",
  overrides: { email?: string; external_id?: string | null; name?: string | null } = {},
) {
  counter += 1;
  return insertMember(deps.db, {
    organization_id: customer.organization_id,
    customer_id: customer.id,
    email: overrides.email ?? `member-${counter}-${Date.now()}@example.com`,
    name: overrides.name ?? `Member ${counter}`,
    external_id: overrides.external_id ?? null,
    role,
    modified_at: null,
    deleted_at: null,
  });
}

/** A live member session (`polar_mst_`), through the session service as the API opens one. */
export async function createMemberSessionToken(deps: Deps, customerId: string, memberId: string): Promise<string> {
  const session = await createCustomerSessionService(deps).create({ customer_id: customerId, member_id: memberId }, null);
  if (!session.token.startsWith("polar_mst_")) throw new Error("the organization has no member model: not a member session");
  return session.token;
}
