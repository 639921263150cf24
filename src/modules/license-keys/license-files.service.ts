import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { toIso } from "../../schema/primitives.ts";
import { openSecret, sealSecret } from "../../values/sealed-secrets.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { DEFAULT_LICENSE_FILE_TTL_DAYS, newSigningKeyPair, privateSigningKey, signLicenseFile } from "./license-files.ts";
import type { LicenseFile, LicenseFileRequest, LicenseSigningJwks } from "./license-files.schemas.ts";
import { displayKey } from "./license-keys.mapper.ts";
import * as keys from "./license-keys.repository.ts";
import { assertValidKey } from "./license-key-validity.ts";
import type { LicenseKeyRow, LicenseSigningKeyRow } from "./license-keys.table.ts";
import * as repo from "./license-signing-keys.repository.ts";

// The sealing purpose of signing keys; part of the sealing key, so it never changes.
const SEAL_PURPOSE = "license-signing-key";
const DAY_SECONDS = 86_400;

/** The organization's active signing key, made on first use (two first uses at once make one). */
async function activeSigningKey(deps: Deps, organizationId: string): Promise<LicenseSigningKeyRow> {
  const existing = await repo.findActiveSigningKey(deps.db, organizationId);
  if (existing) return existing;
  const pair = newSigningKeyPair();
  await repo.insertActiveSigningKeyIfNone(deps.db, {
    created_at: deps.now(),
    organization_id: organizationId,
    public_key: pair.publicKey,
    private_key_sealed: sealSecret(deps.secret, SEAL_PURPOSE, pair.privateKey),
    retired_at: null,
    signed_until: null,
  });
  const active = await repo.findActiveSigningKey(deps.db, organizationId);
  if (!active) throw new Error(`no active license signing key for ${organizationId}`);
  return active;
}

async function publishedKeys(deps: Deps, organizationId: string): Promise<LicenseSigningJwks> {
  await activeSigningKey(deps, organizationId);
  const rows = await repo.publishedSigningKeys(deps.db, organizationId, deps.now());
  return {
    keys: rows.map((row) => ({ kty: "OKP", crv: "Ed25519", x: row.public_key, kid: row.id, alg: "EdDSA", use: "sig" }) as const),
  };
}

/** Public: any organization's keys; an unknown organization is a 404, like every other unknown id. */
async function jwks(deps: Deps, organizationId: string): Promise<LicenseSigningJwks> {
  if (!(await findOrganization(deps.db, organizationId, null))) throw new ResourceNotFound();
  return publishedKeys(deps, organizationId);
}

/**
 * A new active key; the old one signs nothing more but stays published while a file it signed may
 * still be refreshed, so apps that fetched the JWKS before the rotation and files issued before it
 * keep verifying. Rotations at once retire the same key and make one new key.
 */
async function rotate(deps: Deps, organizationId: string, allowed: OrganizationScope): Promise<LicenseSigningJwks> {
  if (!(await findOrganization(deps.db, organizationId, allowed))) throw new ResourceNotFound();
  const pair = newSigningKeyPair();
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await repo.retireActiveSigningKey(trx, organizationId, now);
    await repo.insertActiveSigningKeyIfNone(trx, {
      created_at: now,
      organization_id: organizationId,
      public_key: pair.publicKey,
      private_key_sealed: sealSecret(deps.secret, SEAL_PURPOSE, pair.privateKey),
      retired_at: null,
      signed_until: null,
    });
  });
  return publishedKeys(deps, organizationId);
}

/** Signs a file for a live activation of a valid key (validate's 404s otherwise). */
async function issue(deps: Deps, key: LicenseKeyRow | undefined, activationId: string): Promise<LicenseFile> {
  const now = deps.now();
  assertValidKey(key, now);
  const activation = await keys.findLiveActivation(deps.db, key.id, activationId);
  if (!activation) throw new ResourceNotFound();
  const [customer, signingKey] = await Promise.all([
    keys.findCustomerForKey(deps.db, key.customer_id),
    activeSigningKey(deps, key.organization_id),
  ]);
  const ttl = (key.license_file_ttl_days ?? DEFAULT_LICENSE_FILE_TTL_DAYS) * DAY_SECONDS;
  const refreshAt = new Date(now.getTime() + ttl * 1000);
  const payload = {
    license_key_id: key.id,
    display_key: displayKey(key.key),
    organization_id: key.organization_id,
    customer_id: key.customer_id,
    customer_email: customer.email,
    benefit_id: key.benefit_id,
    limit_activations: key.limit_activations,
    limit_usage: key.limit_usage,
    expires_at: key.expires_at === null ? null : toIso(key.expires_at),
    activation: { id: activation.id, label: activation.label, conditions: activation.conditions },
    issued_at: toIso(now),
    ttl,
  };
  // Recorded before the file leaves: a rotation right after keeps this key published until then.
  await repo.extendSignedUntil(deps.db, signingKey.id, refreshAt);
  const privateKey = privateSigningKey(openSecret(deps.secret, SEAL_PURPOSE, signingKey.private_key_sealed));
  return {
    license_file: signLicenseFile(payload, signingKey.id, privateKey),
    kid: signingKey.id,
    issued_at: toIso(now),
    refresh_at: toIso(refreshAt),
  };
}

export function createLicenseFileService(deps: Deps) {
  return {
    jwks: (organizationId: string) => jwks(deps, organizationId),
    rotate: (organizationId: string, allowed: OrganizationScope) => rotate(deps, organizationId, allowed),
    /** The public client: the key by value, within the organization the body names. */
    issueByValue: async (input: LicenseFileRequest) =>
      issue(deps, await keys.findKeyByValue(deps.db, input.organization_id, input.key), input.activation_id),
    /** The seller: a key of the token's organizations by id. */
    issueById: async (id: string, activationId: string, allowed: OrganizationScope) =>
      issue(deps, await keys.findKey(deps.db, id, allowed, null), activationId),
  };
}
export type LicenseFileService = ReturnType<typeof createLicenseFileService>;
