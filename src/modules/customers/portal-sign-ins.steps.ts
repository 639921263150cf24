import { randomInt } from "node:crypto";
import type { Config } from "../../config.ts";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { generateToken, hashToken } from "../../values/tokens.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { findLiveCustomer } from "./customer-links.repository.ts";
import { updateCustomer } from "./customers.repository.ts";
import { openCustomerSession } from "./customers.steps.ts";
import { memberSessionsEnabled } from "./member-changes.ts";
import { findMember } from "./members.repository.ts";
import type { CustomerRow } from "./customers.table.ts";
import {
  countWrongTry,
  insertPortalSignIn,
  liveCustomersOfMemberEmail,
  liveCustomersWithEmail,
  takeLiveSignIn,
} from "./portal-sign-ins.repository.ts";
import type { PortalSignInKind, PortalSignInRow } from "./portal-sign-ins.table.ts";

// Ways into the portal without a session: a code asked for by email, a link an email carries.
// Each is a secret shown once (in the email), kept as its keyed hash, used once. What the customer
// portal (codes, links at the portal page) and the flows (links in emails) use.

export { deleteExpiredSignIns } from "./portal-sign-ins.repository.ts";

/** How long a code lasts: the issue's 15 minutes (the hosted service gives 30; docs/decisions.md). */
export const SIGN_IN_CODE_TTL_MS = 15 * 60 * 1000;
/** A link in an email lasts a day: long enough to open the email, short enough to go stale in a mailbox. */
export const SIGN_IN_LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** Wrong codes a client may enter before the codes it asked for are void (docs/decisions.md). */
export const MAX_WRONG_CODES = 5;
/** Query parameter of a portal link carrying a sign-in token. */
export const SIGN_IN_PARAMETER = "sign_in";

const CODE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const CODE_LENGTH = 6;
/** Link tokens: the checksum of `generateToken` rejects typos before any query; no `polar_` prefix, as it is no bearer token. */
const LINK_PREFIX = "psi_";
const DRAWS = 5;

/** The customer portal page of an organization, as links and emails name it. */
export const customerPortalUrl = (config: Pick<Config, "checkoutBaseUrl">, slug: string): string =>
  `${config.checkoutBaseUrl}/${encodeURIComponent(slug)}/portal`;

const randomCode = (): string => Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join("");

/** A code looks like one: six of A–Z and 0–9 (codes are case-sensitive, as the hosted service hashes them as given). */
export const isSignInCodeShaped = (value: string): boolean => /^[A-Z0-9]{6}$/.test(value);

/** The key under which a client's wrong tries are counted: a keyed hash, so no address is stored. */
export const requesterKey = (deps: Pick<Deps, "secret">, clientAddress: string): string =>
  hashToken(deps.secret, `sign-in-client:${clientAddress}`);

/**
 * Who an email signs in as, with the address the code goes to: the organization's live customers
 * with that email (case-insensitive); in an organization of member sessions, the customers with a
 * live member of that email (a person may belong to several).
 */
export async function signInCustomers(
  db: Executor,
  organization: Pick<OrganizationRow, "id" | "feature_settings">,
  email: string,
): Promise<{ customer: CustomerRow; email: string }[]> {
  if (!memberSessionsEnabled(organization))
    return (await liveCustomersWithEmail(db, organization.id, email)).map((customer) => ({ customer, email: customer.email }));
  return (await liveCustomersOfMemberEmail(db, organization.id, email)).map(({ member_email, ...customer }) => ({
    customer,
    email: member_email,
  }));
}

interface NewSignIn {
  kind: PortalSignInKind;
  organizationId: string;
  customerId: string;
  email: string;
  targetPath: string | null;
  requesterHash: string | null;
  ttlMs: number;
  now: Date;
}

/**
 * Stores a sign-in and returns its secret with the row. A code is drawn again in the rare case its
 * hash is already taken (36⁶ codes; a live one is never shared).
 */
export async function issueSignIn(
  db: Executor,
  deps: Pick<Deps, "secret">,
  input: NewSignIn,
): Promise<{ secret: string; row: PortalSignInRow }> {
  for (let draw = 0; draw < DRAWS; draw += 1) {
    const secret = input.kind === "code" ? randomCode() : generateToken(LINK_PREFIX);
    const row = await insertPortalSignIn(db, {
      organization_id: input.organizationId,
      customer_id: input.customerId,
      kind: input.kind,
      secret_hash: hashToken(deps.secret, secret),
      email: input.email,
      target_path: input.targetPath,
      requester_hash: input.requesterHash,
      created_at: input.now,
      expires_at: new Date(input.now.getTime() + input.ttlMs),
    });
    if (row) return { secret, row };
  }
  throw new Error("no free sign-in secret after several draws");
}

/**
 * Opens the session a sign-in's customer signs in with: a customer session, or in an organization
 * of member sessions the customer's member with the sign-in's email (none: nothing opens). Signing
 * in through the customer's own address verifies it.
 */
async function openSignedInSession(
  db: Executor,
  deps: Pick<Deps, "secret" | "config">,
  signIn: PortalSignInRow,
  now: Date,
): Promise<string | null> {
  const organization = await findOrganization(db, signIn.organization_id, null);
  const customer = await findLiveCustomer(db, signIn.organization_id, { id: signIn.customer_id });
  if (!organization || !customer) return null;
  const member = memberSessionsEnabled(organization) ? await findMember(db, customer.id, { email: signIn.email }) : null;
  if (memberSessionsEnabled(organization) && !member) return null;
  if (!customer.email_verified && customer.email.toLowerCase() === signIn.email.toLowerCase())
    await updateCustomer(db, customer.id, { email_verified: true });
  const { token } = await openCustomerSession(db, deps, {
    organizationId: customer.organization_id,
    customerId: customer.id,
    memberId: member?.id ?? null,
    returnUrl: null,
    now,
  });
  return token;
}

/**
 * Uses a sign-in once, within the caller's transaction: the row is taken (deleted) and the session
 * of its customer opened, its token returned with the row. Null when the secret opens nothing:
 * unknown, expired, used, voided, or of another organization than the one named. A wrong code
 * counts against the client that entered it (`requesterHash`); the caller commits that count.
 */
export async function redeemSignIn(
  db: Executor,
  deps: Pick<Deps, "secret" | "config">,
  input: { kind: PortalSignInKind; secret: string; organizationId: string | null; requesterHash: string | null; now: Date },
): Promise<{ token: string; signIn: PortalSignInRow } | null> {
  const signIn = await takeLiveSignIn(db, {
    kind: input.kind,
    secretHash: hashToken(deps.secret, input.secret),
    organizationId: input.organizationId,
    now: input.now,
    maxFailures: MAX_WRONG_CODES,
  });
  if (!signIn) {
    if (input.requesterHash) await countWrongTry(db, input.requesterHash, input.now, MAX_WRONG_CODES);
    return null;
  }
  const token = await openSignedInSession(db, deps, signIn, input.now);
  return token ? { token, signIn } : null;
}

/**
 * A single-use link into the customer's portal for an email (a failed payment's), opening `path`
 * below the portal (e.g. `#payment-method`) once signed in. Written in the caller's transaction;
 * the token is only in the URL returned, never a session token.
 */
export async function issuePortalSignInLink(
  db: Executor,
  deps: Pick<Deps, "secret" | "config">,
  input: { organization: Pick<OrganizationRow, "id" | "slug">; customer: Pick<CustomerRow, "id" | "email">; path: string; now: Date },
): Promise<string> {
  const { secret } = await issueSignIn(db, deps, {
    kind: "link",
    organizationId: input.organization.id,
    customerId: input.customer.id,
    email: input.customer.email,
    targetPath: input.path,
    requesterHash: null,
    ttlMs: SIGN_IN_LINK_TTL_MS,
    now: input.now,
  });
  const url = new URL(customerPortalUrl(deps.config, input.organization.slug));
  url.searchParams.set(SIGN_IN_PARAMETER, secret);
  return url.toString();
}
