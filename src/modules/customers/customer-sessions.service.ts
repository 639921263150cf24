import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope, Principal, TokenAuthenticator } from "../../http/auth.ts";
import { ResourceNotFound, valueError } from "../../http/errors.ts";
import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { TokenPrefix, hasValidChecksum, hashToken } from "../../values/tokens.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { toCustomer } from "./customers.mapper.ts";
import { findCustomer, findCustomerByExternalId, findCustomerForUpdate } from "./customers.repository.ts";
import { openCustomerSession } from "./customers.steps.ts";
import { customerPortalUrl } from "./portal-sign-ins.steps.ts";
import type { CustomerRow } from "./customers.table.ts";
import { findLiveCustomerSession } from "./customer-sessions.repository.ts";
import type { CustomerSession, CustomerSessionCreate } from "./customer-sessions.schemas.ts";
import { ensureOwner, memberSessionsEnabled } from "./member-changes.ts";
import { findLiveMemberSession, findSessionSummary } from "./member-sessions.repository.ts";
import { findMember, findOwner } from "./members.repository.ts";

/**
 * The member a session is opened for, when the organization runs the member model: the named
 * member (`member_id` before `external_member_id`) of this customer, else an individual
 * customer's owner, created on the spot when missing; a team customer must name one.
 */
async function sessionMember(deps: Deps, customer: CustomerRow, input: CustomerSessionCreate): Promise<{ id: string; email: string }> {
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

function portalUrl(deps: Deps, organization: OrganizationRow, token: string, email: string): string {
  const portal = new URL(customerPortalUrl(deps.config, organization.slug));
  portal.searchParams.set("customer_session_token", token);
  portal.searchParams.set("email", email);
  return portal.toString();
}

/** The customer a session is asked for, by id or external id, within the caller's organizations. */
async function sessionCustomer(deps: Deps, input: CustomerSessionCreate, allowed: OrganizationScope): Promise<CustomerRow> {
  const customer =
    "customer_id" in input
      ? await findCustomer(deps.db, input.customer_id, allowed)
      : await findCustomerByExternalId(deps.db, input.external_customer_id, allowed);
  if (customer) return customer;
  const [field, value] = "customer_id" in input ? ["customer_id", input.customer_id] : ["external_customer_id", input.external_customer_id];
  throw valueError(["body", field], "Customer does not exist.", value);
}

/**
 * Opens a portal session for a customer of the caller's organizations; the token is returned
 * once. With the member model on, it is a member session (`polar_mst_`) of one of its members.
 */
async function createCustomerSession(deps: Deps, input: CustomerSessionCreate, allowed: OrganizationScope): Promise<CustomerSession> {
  const customer = await sessionCustomer(deps, input, allowed);
  const organization = await findOrganization(deps.db, customer.organization_id, null);
  if (!organization) throw valueError(["body", "customer_id"], "Customer does not exist.", customer.id);
  const member = memberSessionsEnabled(organization) ? await sessionMember(deps, customer, input) : null;
  const { token, session } = await openCustomerSession(deps.db, deps, {
    organizationId: customer.organization_id,
    customerId: customer.id,
    memberId: member?.id ?? null,
    returnUrl: input.return_url ?? null,
    now: deps.now(),
  });
  return {
    created_at: toIso(session.created_at),
    modified_at: toIsoOrNull(session.modified_at),
    id: session.id,
    token,
    expires_at: toIso(session.expires_at),
    return_url: session.return_url,
    customer_portal_url: portalUrl(deps, organization, token, member ? member.email : customer.email),
    customer_id: customer.id,
    customer: toCustomer(customer),
  };
}

/** The expiry and return URL of the calling portal session, customer or member. */
async function introspectSession(
  deps: Deps,
  session: { kind: "customer" | "member"; sessionId: string },
): Promise<{ expires_at: string; return_url: string | null }> {
  const row = await findSessionSummary(deps.db, session.kind === "member" ? "member_sessions" : "customer_sessions", session.sessionId);
  if (!row) throw new ResourceNotFound();
  return { expires_at: toIso(row.expires_at), return_url: row.return_url };
}

/** Who the calling portal session acts as: its customer, or its member with the member's role. */
async function authenticatedUser(deps: Deps, session: Principal & { kind: "customer" | "member" }) {
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
}

/** A bearer-token resolver for one kind of session: a token of its prefix, looked up live by its keyed hash. */
function sessionResolver<Row>(
  deps: Deps,
  prefix: string,
  findLive: (db: Executor, tokenHash: string, now: Date) => Promise<Row | undefined>,
  principal: (row: Row) => Principal,
): TokenAuthenticator {
  return async (token) => {
    if (!hasValidChecksum(token, prefix)) return null;
    const row = await findLive(deps.db, hashToken(deps.secret, token), deps.now());
    return row ? principal(row) : null;
  };
}

/** Bearer-token resolvers for `polar_cst_` (customer) and `polar_mst_` (member) tokens. */
function sessionAuthenticators(deps: Deps): Map<string, TokenAuthenticator> {
  const customerSession = sessionResolver(deps, TokenPrefix.customerSession, findLiveCustomerSession, (row) => ({
    kind: "customer",
    sessionId: row.id,
    organizationId: row.organization_id,
    customerId: row.customer_id,
    clockOffsetMs: row.clock_offset_ms,
  }));
  const memberSession = sessionResolver(deps, TokenPrefix.memberSession, findLiveMemberSession, (row) => ({
    kind: "member",
    sessionId: row.id,
    organizationId: row.organization_id,
    customerId: row.customer_id,
    memberId: row.member_id,
    memberRole: row.role,
    clockOffsetMs: row.clock_offset_ms,
  }));
  return new Map([
    [TokenPrefix.customerSession, customerSession],
    [TokenPrefix.memberSession, memberSession],
  ]);
}

export function createCustomerSessionService(deps: Deps) {
  return {
    create: (input: CustomerSessionCreate, allowed: OrganizationScope) => createCustomerSession(deps, input, allowed),
    introspect: (session: { kind: "customer" | "member"; sessionId: string }) => introspectSession(deps, session),
    authenticatedUser: (session: Principal & { kind: "customer" | "member" }) => authenticatedUser(deps, session),
    authenticators: () => sessionAuthenticators(deps),
  };
}
export type CustomerSessionService = ReturnType<typeof createCustomerSessionService>;
