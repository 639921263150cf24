import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal, TokenAuthenticator } from "../../http/auth.ts";
import { ResourceNotFound, valueError } from "../../http/errors.ts";
import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { TokenPrefix, generateToken, hasValidChecksum, hashToken } from "../../values/tokens.ts";
import { findOrganization } from "../organizations/organizations.repository.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { toCustomer } from "./customers.mapper.ts";
import { findCustomer, findCustomerByExternalId, findCustomerForUpdate } from "./customers.repository.ts";
import type { CustomerRow } from "./customers.table.ts";
import { findLiveCustomerSession, insertCustomerSession } from "./customer-sessions.repository.ts";
import type { CustomerSession, CustomerSessionCreate } from "./customer-sessions.schemas.ts";
import { ensureOwner, memberSessionsEnabled } from "./member-changes.ts";
import { findLiveMemberSession, findSessionSummary, insertMemberSession } from "./member-sessions.repository.ts";
import { findMember, findOwner } from "./members.repository.ts";

export function createCustomerSessionService(deps: Deps) {
  const hash = (token: string) => hashToken(deps.secret, token);

  /**
   * The member a session is opened for, when the organization runs the member model: the named
   * member (`member_id` before `external_member_id`) of this customer, else an individual
   * customer's owner, created on the spot when missing; a team customer must name one.
   */
  async function sessionMember(customer: CustomerRow, input: CustomerSessionCreate): Promise<{ id: string; email: string }> {
    const named = input.member_id
      ? { field: "member_id", value: input.member_id, key: { id: input.member_id } }
      : input.external_member_id
        ? { field: "external_member_id", value: input.external_member_id, key: { externalId: input.external_member_id } }
        : null;
    if (named) {
      const member = await findMember(deps.db, customer.id, named.key);
      if (!member) throw valueError(["body", named.field], "Member does not exist for this customer.", named.value);
      return member;
    }
    if (customer.type === "team") throw valueError(["body", "member_id"], "member_id is required for team customers.", null);
    const owner = await findOwner(deps.db, customer.id);
    if (owner) return owner;
    return deps.db.transaction().execute(async (trx) => {
      const locked = await findCustomerForUpdate(trx, customer.id, null);
      if (!locked) throw valueError(["body", "customer_id"], "No owner member found for this customer.", customer.id);
      return ensureOwner(trx, locked, null, deps.now());
    });
  }

  function portalUrl(organization: OrganizationRow, token: string, email: string): string {
    const portal = new URL(`${deps.config.checkoutBaseUrl}/${organization.slug}/portal`);
    portal.searchParams.set("customer_session_token", token);
    portal.searchParams.set("email", email);
    return portal.toString();
  }

  return {
    /**
     * Opens a portal session for a customer of the caller's organizations; the token is returned
     * once. With the member model on, it is a member session (`polar_mst_`) of one of its members.
     */
    async create(input: CustomerSessionCreate, allowed: OrganizationScope): Promise<CustomerSession> {
      const customer =
        "customer_id" in input
          ? await findCustomer(deps.db, input.customer_id, allowed)
          : await findCustomerByExternalId(deps.db, input.external_customer_id, allowed);
      if (!customer) {
        const [field, value] =
          "customer_id" in input ? ["customer_id", input.customer_id] : ["external_customer_id", input.external_customer_id];
        throw valueError(["body", field], "Customer does not exist.", value);
      }
      const organization = await findOrganization(deps.db, customer.organization_id, null);
      if (!organization) throw valueError(["body", "customer_id"], "Customer does not exist.", customer.id);
      const member = memberSessionsEnabled(organization) ? await sessionMember(customer, input) : null;
      const token = generateToken(member ? TokenPrefix.memberSession : TokenPrefix.customerSession);
      const now = deps.now();
      const values = {
        organization_id: customer.organization_id,
        customer_id: customer.id,
        token_hash: hash(token),
        created_at: now,
        modified_at: null,
        expires_at: new Date(now.getTime() + deps.config.customerSessionTtlSeconds * 1000),
        return_url: input.return_url ?? null,
      };
      const row = member
        ? await insertMemberSession(deps.db, { ...values, member_id: member.id })
        : await insertCustomerSession(deps.db, values);
      return {
        created_at: toIso(row.created_at),
        modified_at: toIsoOrNull(row.modified_at),
        id: row.id,
        token,
        expires_at: toIso(row.expires_at),
        return_url: row.return_url,
        customer_portal_url: portalUrl(organization, token, member ? member.email : customer.email),
        customer_id: customer.id,
        customer: toCustomer(customer),
      };
    },

    /** The expiry and return URL of the calling portal session, customer or member. */
    async introspect(session: {
      kind: "customer" | "member";
      sessionId: string;
    }): Promise<{ expires_at: string; return_url: string | null }> {
      const row = await findSessionSummary(deps.db, session.kind === "member" ? "member_sessions" : "customer_sessions", session.sessionId);
      if (!row) throw new ResourceNotFound();
      return { expires_at: toIso(row.expires_at), return_url: row.return_url };
    },

    /** Who the calling portal session acts as: its customer, or its member with the member's role. */
    async authenticatedUser(session: Principal & { kind: "customer" | "member" }) {
      const customer = await findCustomer(deps.db, session.customerId, [session.organizationId]);
      if (!customer) throw new ResourceNotFound();
      if (session.kind === "customer") {
        return {
          type: "customer" as const,
          name: customer.name,
          email: customer.email,
          customer_id: customer.id,
          member_id: null,
          role: null,
        };
      }
      const member = await findMember(deps.db, customer.id, { id: session.memberId });
      if (!member) throw new ResourceNotFound();
      return {
        type: "member" as const,
        name: member.name,
        email: member.email,
        customer_id: customer.id,
        member_id: member.id,
        role: member.role,
      };
    },

    /** Bearer-token resolvers for `polar_cst_` (customer) and `polar_mst_` (member) tokens. */
    authenticators(): Map<string, TokenAuthenticator> {
      const customerSession = async (token: string): Promise<Principal | null> => {
        if (!hasValidChecksum(token, TokenPrefix.customerSession)) return null;
        const row = await findLiveCustomerSession(deps.db, hash(token), deps.now());
        return row
          ? {
              kind: "customer",
              sessionId: row.id,
              organizationId: row.organization_id,
              customerId: row.customer_id,
              clockOffsetMs: row.clock_offset_ms,
            }
          : null;
      };
      const memberSession = async (token: string): Promise<Principal | null> => {
        if (!hasValidChecksum(token, TokenPrefix.memberSession)) return null;
        const row = await findLiveMemberSession(deps.db, hash(token), deps.now());
        return row
          ? {
              kind: "member",
              sessionId: row.id,
              organizationId: row.organization_id,
              customerId: row.customer_id,
              memberId: row.member_id,
              memberRole: row.role,
              clockOffsetMs: row.clock_offset_ms,
            }
          : null;
      };
      return new Map([
        [TokenPrefix.customerSession, customerSession],
        [TokenPrefix.memberSession, memberSession],
      ]);
    },
  };
}
export type CustomerSessionService = ReturnType<typeof createCustomerSessionService>;
