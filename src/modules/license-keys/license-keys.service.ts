import { randomUUID } from "node:crypto";
import type { Deps } from "../../context.ts";
import type { Db, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { BadRequest, NotPermitted, ResourceNotFound } from "../../http/errors.ts";
import { asList, pageWindow, toPage, type Page, type PageRequest } from "../../schema/pagination.ts";
import type { JsonValue } from "../../db/json.ts";
import type { LicenseKeyRow } from "./license-keys.table.ts";
import { addInterval } from "../../values/calendar.ts";
import { displayKey, toActivation, toLicenseKey } from "./license-keys.mapper.ts";
import * as repo from "./license-keys.repository.ts";
import { customersByIds } from "../customers/customers.steps.ts";
import { recordLicenseKeyHeartbeat } from "./license-key-heartbeats.service.ts";
import { assertValidKey, EXPIRED, isExpired } from "./license-key-validity.ts";
import type {
  LicenseKeyActivate,
  LicenseKeyActivationRead,
  LicenseKeyDeactivate,
  LicenseKeyListQuery,
  LicenseKeyRead,
  LicenseKeyUpdate,
  LicenseKeyValidate,
  LicenseKeyWithActivations,
  PortalLicenseKeyListQuery,
  ValidatedLicenseKey,
} from "./license-keys.schemas.ts";

// The hosted service's messages, word for word: clients match on them.
const NO_LONGER_ACTIVE_ACTIVATE = "License key is no longer active. This license key can not be activated.";
const NO_ACTIVATIONS = "This license key does not support activations. Use the /validate endpoint instead to check license validity.";
const LIMIT_REACHED = "License key activation limit already reached";
const CONDITIONS_MISMATCH = "License key does not match required conditions";
const BENEFIT_MISMATCH = "License key does not match given benefit.";
const CUSTOMER_MISMATCH = "License key does not match given user.";

/**
 * Who may use a key by value: the public portal routes reach any organization (`null`), the
 * server routes only the caller's. Outside the scope a key answers exactly like an unknown one.
 */
function assertInScope(organizationId: string, allowed: OrganizationScope): void {
  if (allowed !== null && !allowed.includes(organizationId)) throw new ResourceNotFound();
}

/** Same keys with strictly equal values; JSON key order is irrelevant. */
function sameConditions(required: Record<string, JsonValue>, given: Record<string, unknown> | undefined): boolean {
  const presented = given ?? {};
  const keys = Object.keys(required);
  return (
    keys.length === Object.keys(presented).length && keys.every((key) => Object.hasOwn(presented, key) && presented[key] === required[key])
  );
}

async function withCustomer(db: Executor, row: LicenseKeyRow): Promise<LicenseKeyRead> {
  return toLicenseKey(row, await repo.findCustomerForKey(db, row.customer_id));
}

async function withActivations(db: Executor, row: LicenseKeyRow): Promise<LicenseKeyWithActivations> {
  const [key, activations] = await Promise.all([withCustomer(db, row), repo.liveActivationsOf(db, row.id)]);
  return { ...key, activations: activations.map(toActivation) };
}

/** What a `license_keys` benefit's properties say about the keys it issues. */
export interface LicenseKeyTerms {
  prefix?: string | null;
  expires?: { ttl: number; timeframe: "day" | "month" | "year" } | null;
  activations?: { limit: number } | null;
  limit_usage?: number | null;
  /** An extension: days a license file lasts before the app refreshes it; absent: the default. */
  license_file_ttl_days?: number | null;
  /** An extension: activations must send a heartbeat every `interval_seconds`, or lapse after `grace_seconds` more. */
  heartbeat?: { interval_seconds: number; grace_seconds: number } | null;
}

/** An uppercase UUID4, behind the benefit's prefix when it has one. */
export function licenseKeyValue(prefix: string | null | undefined): string {
  const key = randomUUID().toUpperCase();
  const cleaned = prefix?.trim().toUpperCase();
  return cleaned ? `${cleaned}-${key}` : key;
}

/** Issues the key a benefit grant promises, in the grant's transaction; returns what the grant records. */
export async function issueLicenseKey(
  db: Executor,
  input: { organizationId: string; benefitId: string; customerId: string; terms: LicenseKeyTerms; now: Date },
): Promise<{ license_key_id: string; display_key: string }> {
  const { terms, now } = input;
  const row = await repo.insertLicenseKey(db, {
    created_at: now,
    modified_at: null,
    deleted_at: null,
    organization_id: input.organizationId,
    customer_id: input.customerId,
    benefit_id: input.benefitId,
    key: licenseKeyValue(terms.prefix),
    ...keyLimits(terms, now),
    last_validated_at: null,
  });
  return { license_key_id: row.id, display_key: displayKey(row.key) };
}

/** The limits and expiry a key gets from its benefit's terms, as of `now`. */
const keyLimits = (terms: LicenseKeyTerms, now: Date) => ({
  limit_activations: terms.activations?.limit ?? null,
  limit_usage: terms.limit_usage ?? null,
  expires_at: terms.expires ? addInterval(now, terms.expires.timeframe, terms.expires.ttl) : null,
  license_file_ttl_days: terms.license_file_ttl_days ?? null,
  heartbeat_interval_seconds: terms.heartbeat?.interval_seconds ?? null,
  heartbeat_grace_seconds: terms.heartbeat?.grace_seconds ?? null,
});

/**
 * Gives issued keys their benefit's new terms (the benefit was edited), as the hosted service
 * re-runs each granted grant: limits replaced, the expiry counted again from now. Status, usage
 * and activations stay as they are.
 */
export async function applyLicenseKeyTerms(db: Executor, keyIds: readonly string[], terms: LicenseKeyTerms, now: Date): Promise<void> {
  await repo.updateKeys(db, keyIds, { ...keyLimits(terms, now), modified_at: now });
}

type PortalCustomer = { organizationId: string; customerId: string };

/** `reads`: the replica for the organization's list, the primary for a customer's portal. */
async function keysPage(reads: Db, filter: repo.LicenseKeyFilter, request: PageRequest): Promise<Page<LicenseKeyRead>> {
  const [rows, total] = await Promise.all([repo.listKeys(reads, filter, pageWindow(request)), repo.countKeys(reads, filter)]);
  const customers = await customersByIds(
    reads,
    rows.map((row) => row.customer_id),
  );
  return toPage(
    rows.map((row) => toLicenseKey(row, customers.get(row.customer_id)!)),
    total,
    request,
  );
}

async function activateLicenseKey(deps: Deps, input: LicenseKeyActivate, allowed: OrganizationScope): Promise<LicenseKeyActivationRead> {
  assertInScope(input.organization_id, allowed);
  const now = deps.now();
  return deps.db.transaction().execute(async (trx) => {
    // The row lock makes the count-then-insert below atomic per key.
    const key = await repo.findKeyByValueForUpdate(trx, input.organization_id, input.key);
    if (!key) throw new ResourceNotFound();
    if (key.status !== "granted") throw new NotPermitted(NO_LONGER_ACTIVE_ACTIVATE);
    if (isExpired(key, now)) throw new NotPermitted(EXPIRED);
    if (!key.limit_activations) throw new NotPermitted(NO_ACTIVATIONS);
    if ((await repo.countLiveActivations(trx, key.id)) >= key.limit_activations) throw new NotPermitted(LIMIT_REACHED);
    const activation = await repo.insertActivation(trx, {
      created_at: now,
      modified_at: null,
      deleted_at: null,
      organization_id: key.organization_id,
      license_key_id: key.id,
      label: input.label,
      conditions: JSON.stringify(input.conditions ?? {}),
      meta: JSON.stringify(input.meta ?? {}),
      last_heartbeat_at: null,
    });
    return { ...toActivation(activation), license_key: await withCustomer(trx, key) };
  });
}

async function validateLicenseKey(deps: Deps, input: LicenseKeyValidate, allowed: OrganizationScope): Promise<ValidatedLicenseKey> {
  assertInScope(input.organization_id, allowed);
  const now = deps.now();
  const increment = input.increment_usage ?? 0;
  return deps.db.transaction().execute(async (trx) => {
    const key = await repo.findKeyByValueForUpdate(trx, input.organization_id, input.key);
    assertValidKey(key, now);
    let activation = null;
    if (input.activation_id) {
      activation = await repo.findLiveActivation(trx, key.id, input.activation_id);
      if (!activation) throw new ResourceNotFound();
      if (Object.keys(activation.conditions).length > 0 && !sameConditions(activation.conditions, input.conditions)) {
        throw new ResourceNotFound(CONDITIONS_MISMATCH);
      }
    }
    if (input.benefit_id && input.benefit_id !== key.benefit_id) throw new ResourceNotFound(BENEFIT_MISMATCH);
    if (input.customer_id && input.customer_id !== key.customer_id) throw new ResourceNotFound(CUSTOMER_MISMATCH);
    if (increment > 0 && key.limit_usage !== null) {
      const remaining = key.limit_usage - key.usage;
      if (increment > remaining) throw new BadRequest(`License key only has ${Math.max(remaining, 0)} more usages.`);
    }
    const updated = await repo.recordValidation(trx, key.id, increment, now);
    return { ...(await withCustomer(trx, updated)), activation: activation ? toActivation(activation) : null };
  });
}

async function deactivateLicenseKey(deps: Deps, input: LicenseKeyDeactivate, allowed: OrganizationScope): Promise<void> {
  assertInScope(input.organization_id, allowed);
  const key = await repo.findKeyByValue(deps.db, input.organization_id, input.key);
  if (!key || !(await repo.deactivate(deps.db, key.id, input.activation_id, deps.now()))) throw new ResourceNotFound();
}

function listLicenseKeys(deps: Deps, query: LicenseKeyListQuery, allowed: OrganizationScope): Promise<Page<LicenseKeyRead>> {
  return keysPage(
    deps.readDb,
    {
      allowed,
      organizationIds: asList(query.organization_id),
      benefitIds: asList(query.benefit_id),
      statuses: asList(query.status),
      customerIds: asList(query.customer_id),
    },
    query,
  );
}

/** One key with its live activations; `customerId` narrows it to a portal customer's own keys. */
async function getLicenseKey(
  deps: Deps,
  id: string,
  allowed: OrganizationScope,
  customerId: string | null,
): Promise<LicenseKeyWithActivations> {
  const row = await repo.findKey(deps.db, id, allowed, customerId);
  if (!row) throw new ResourceNotFound();
  return withActivations(deps.db, row);
}

/** One live activation of a key of the organizations in scope, with its key; a deactivated one is gone (404). */
async function getLicenseKeyActivation(
  deps: Deps,
  ids: { id: string; activationId: string },
  allowed: OrganizationScope,
): Promise<LicenseKeyActivationRead> {
  const row = await repo.findKey(deps.db, ids.id, allowed, null);
  const activation = row ? await repo.findLiveActivation(deps.db, row.id, ids.activationId) : undefined;
  if (!row || !activation) throw new ResourceNotFound();
  return { ...toActivation(activation), license_key: await withCustomer(deps.db, row) };
}

/**
 * Applies a seller's change to a key of the caller's organizations (404 otherwise), in the caller's
 * transaction: only the fields sent, with no check against the usage or activations it has (as the
 * hosted service does). Returns the key before and after, for the caller to follow a status change.
 */
export async function changeLicenseKey(
  db: Executor,
  id: string,
  input: LicenseKeyUpdate,
  allowed: OrganizationScope,
  now: Date,
): Promise<{ previous: LicenseKeyRow; key: LicenseKeyRow }> {
  const previous = await repo.findKeyForUpdate(db, id, allowed);
  if (!previous) throw new ResourceNotFound();
  const key = await repo.updateKey(db, id, {
    modified_at: now,
    ...(input.status ? { status: input.status } : {}),
    ...(input.usage !== undefined ? { usage: input.usage } : {}),
    ...(input.limit_activations !== undefined ? { limit_activations: input.limit_activations } : {}),
    ...(input.limit_usage !== undefined ? { limit_usage: input.limit_usage } : {}),
    ...(input.expires_at !== undefined ? { expires_at: input.expires_at === null ? null : new Date(input.expires_at) } : {}),
  });
  return { previous, key };
}

/** A key as its reads answer it (with its customer), on the caller's executor. */
export const licenseKeyRead = (db: Executor, key: LicenseKeyRow): Promise<LicenseKeyRead> => withCustomer(db, key);

/** The portal: a customer sees only its own keys. */
function listCustomerLicenseKeys(deps: Deps, query: PortalLicenseKeyListQuery, customer: PortalCustomer): Promise<Page<LicenseKeyRead>> {
  const benefitIds = query.benefit_id ? [query.benefit_id] : undefined;
  return keysPage(deps.db, { allowed: [customer.organizationId], customerIds: [customer.customerId], benefitIds }, query);
}

export function createLicenseKeyService(deps: Deps) {
  return {
    activate: (input: LicenseKeyActivate, allowed: OrganizationScope) => activateLicenseKey(deps, input, allowed),
    validate: (input: LicenseKeyValidate, allowed: OrganizationScope) => validateLicenseKey(deps, input, allowed),
    deactivate: (input: LicenseKeyDeactivate, allowed: OrganizationScope) => deactivateLicenseKey(deps, input, allowed),
    heartbeat: (input: LicenseKeyDeactivate) => recordLicenseKeyHeartbeat(deps, input),
    list: (query: LicenseKeyListQuery, allowed: OrganizationScope) => listLicenseKeys(deps, query, allowed),
    get: (id: string, allowed: OrganizationScope) => getLicenseKey(deps, id, allowed, null),
    getActivation: (ids: { id: string; activationId: string }, allowed: OrganizationScope) => getLicenseKeyActivation(deps, ids, allowed),
    listForCustomer: (query: PortalLicenseKeyListQuery, customer: PortalCustomer) => listCustomerLicenseKeys(deps, query, customer),
    getForCustomer: (id: string, customer: PortalCustomer) => getLicenseKey(deps, id, [customer.organizationId], customer.customerId),
  };
}
export type LicenseKeyService = ReturnType<typeof createLicenseKeyService>;
