import type { Deps } from "../../context.ts";
import { enqueueCustomerStateChanged } from "../../contracts/customer-state-changes.ts";
import type { Executor } from "../../db/database.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { generateToken, hashToken } from "../../values/tokens.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import {
  deleteStaleEmailUpdates,
  findLiveEmailUpdate,
  insertEmailUpdate,
  takeLiveEmailUpdate,
} from "./customer-email-updates.repository.ts";
import type { CustomerEmailUpdateRow } from "./customer-email-updates.table.ts";
import { toCustomer } from "./customers.mapper.ts";
import { findClash, findCustomerForUpdate, updateCustomer } from "./customers.repository.ts";
import { openCustomerSession } from "./customers.steps.ts";
import type { CustomerRow } from "./customers.table.ts";
import { changeMember, ensureOwner, memberSessionsEnabled } from "./member-changes.ts";
import { findOwnerForUpdate } from "./members.repository.ts";

// A portal customer changing their own email: the new address proves itself with a token sent to
// it, as the hosted service does. Only the token's keyed hash is stored.

/** How long the emailed token lasts: the hosted service's 30 minutes. */
export const EMAIL_UPDATE_TTL_MS = 30 * 60 * 1000;
const TOKEN_PREFIX = "polar_cev_";

/** Whether another live customer of the organization has the address (case-insensitive). */
export const emailTakenInOrganization = async (db: Executor, customer: Pick<CustomerRow, "id" | "organization_id">, email: string) =>
  (await findClash(db, customer.organization_id, "email", email, customer.id)) !== undefined;

/** A new request for the customer, replacing its pending ones; the token is returned once, for the email. */
export async function issueEmailUpdate(
  db: Executor,
  deps: Pick<Deps, "secret">,
  input: { customer: Pick<CustomerRow, "id" | "organization_id">; email: string; now: Date },
): Promise<{ token: string; row: CustomerEmailUpdateRow }> {
  await deleteStaleEmailUpdates(db, input.customer.id, input.now);
  const token = generateToken(TOKEN_PREFIX);
  const row = await insertEmailUpdate(db, {
    organization_id: input.customer.organization_id,
    customer_id: input.customer.id,
    email: input.email,
    token_hash: hashToken(deps.secret, token),
    created_at: input.now,
    expires_at: new Date(input.now.getTime() + EMAIL_UPDATE_TTL_MS),
  });
  return { token, row };
}

/** Whether a token opens a live request. */
export const emailUpdateIsLive = async (db: Executor, deps: Pick<Deps, "secret">, token: string, now: Date) =>
  (await findLiveEmailUpdate(db, hashToken(deps.secret, token), now)) !== undefined;

export type EmailUpdateOutcome =
  | { kind: "invalid" }
  | { kind: "taken"; email: string }
  | {
      kind: "changed";
      customer: CustomerRow;
      organization: OrganizationRow;
      previousEmail: string;
      sessionToken: string;
      request: CustomerEmailUpdateRow;
    };

/**
 * Uses a request once, in the caller's transaction: the row is taken whatever follows. When the
 * address is still free, the customer gets it (verified), the owner member follows it, and a new
 * portal session opens (a member session of the owner where the organization runs member sessions).
 * `customer.updated` and the state change are written with it.
 */
export async function applyEmailUpdate(
  trx: Executor,
  deps: Pick<Deps, "secret" | "config">,
  token: string,
  now: Date,
): Promise<EmailUpdateOutcome> {
  const request = await takeLiveEmailUpdate(trx, hashToken(deps.secret, token), now);
  if (!request) return { kind: "invalid" };
  const current = await findCustomerForUpdate(trx, request.customer_id, [request.organization_id]);
  const seller = await findOrganization(trx, request.organization_id, null);
  if (!current || !seller) return { kind: "invalid" };
  if (await emailTakenInOrganization(trx, current, request.email)) return { kind: "taken", email: request.email };
  const customer = await updateCustomer(trx, current.id, { email: request.email, email_verified: true, modified_at: now });
  const owner = await findOwnerForUpdate(trx, customer.id);
  const member = owner
    ? await changeMember(trx, owner, { email: request.email }, now)
    : memberSessionsEnabled(seller)
      ? await ensureOwner(trx, customer, null, now)
      : null;
  await recordWebhookEvent(trx, { organizationId: customer.organization_id, type: "customer.updated", data: toCustomer(customer), now });
  await enqueueCustomerStateChanged(trx, customer.id);
  const { token: sessionToken } = await openCustomerSession(trx, deps, {
    organizationId: customer.organization_id,
    customerId: customer.id,
    memberId: memberSessionsEnabled(seller) && member ? member.id : null,
    returnUrl: null,
    now,
  });
  return { kind: "changed", customer, organization: seller, previousEmail: current.email, sessionToken, request };
}
