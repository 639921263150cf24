import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { NotPermitted, RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { pageWindow, paginate, parseSorting, toPage, type Page, type PageRequest } from "../../schema/pagination.ts";
import { benefitDownloadableFiles, type BenefitDownloadableFile } from "../files/files.steps.ts";
import { applyLicenseKeyTerms } from "../license-keys/license-keys.steps.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import { afterGrantChanges, publishGrantEvents } from "./benefit-grant-events.ts";
import type { BenefitGrantProperties } from "./benefit-grants.schemas.ts";
import type { BenefitCreate, BenefitListQuery, BenefitUpdate } from "./benefit-inputs.schemas.ts";
import { licenseKeyProperties, toBenefit } from "./benefits.mapper.ts";
import type { Benefit } from "./benefits.schemas.ts";
import type { BenefitRow } from "./benefits.table.ts";
import {
  countBenefits,
  findBenefit,
  findBenefitForUpdate,
  insertBenefit,
  pageBenefits,
  revokeBenefitGrants,
  touchGrantedGrantsOfBenefit,
  updateBenefit,
} from "./benefits.repository.ts";
import { benefitDependentReads } from "./benefit-dependent-reads.ts";
import { updateGrantProperties } from "./benefit-grants.repository.ts";
import { activeFiles, assertFilesExist, grantBenefitFiles } from "./downloadable-grants.ts";
import type { JsonValue } from "../../db/json.ts";

/** A benefit type with its properties as a create (or an update's replacement) gives them. */
type TypedProperties<U = BenefitCreate> = U extends { type: infer T; properties: infer P } ? { type: T; properties: P } : never;

/** Properties as stored: every key of the type's shape present, absent ones null. */
function storedProperties(input: TypedProperties): Record<string, unknown> {
  if (input.type === "custom") return { note: input.properties.note ?? null };
  if (input.type === "meter_credit") return { ...input.properties };
  if (input.type === "downloadables") return { files: input.properties.files, archived: input.properties.archived ?? {} };
  const { prefix, expires, activations, limit_usage, license_file_ttl_days, heartbeat } = input.properties;
  return {
    prefix: prefix ?? null,
    expires: expires ?? null,
    activations: activations ?? null,
    limit_usage: limit_usage ?? null,
    // The extensions are stored only when set, so benefits without them keep the reference's shape.
    ...(typeof license_file_ttl_days === "number" ? { license_file_ttl_days } : {}),
    ...(heartbeat ? { heartbeat } : {}),
  };
}

/** The properties an update replaces the stored ones with; null when it leaves them. */
function replacedProperties(input: BenefitUpdate): TypedProperties | null {
  switch (input.type) {
    case "custom":
      return input.properties ? { type: input.type, properties: input.properties } : null;
    case "license_keys":
      return input.properties ? { type: input.type, properties: input.properties } : null;
    case "meter_credit":
      return input.properties ? { type: input.type, properties: input.properties } : null;
    case "downloadables":
      return input.properties ? { type: input.type, properties: input.properties } : null;
  }
}

/** What the properties name must be the organization's: a meter credit's meter, a downloadables benefit's files. */
async function assertReferencesExist(db: Executor, organizationId: string, input: TypedProperties): Promise<void> {
  if (input.type === "downloadables") return assertFilesExist(db, organizationId, input.properties.files);
  if (input.type !== "meter_credit" || (await benefitDependentReads().meterExists(db, organizationId, input.properties.meter_id))) return;
  throw new RequestValidationError([
    fieldIssue(["body", "properties", "meter_id"], "This meter does not exist.", input.properties.meter_id),
  ]);
}

/** Whether new license key terms change what issued keys carry (the prefix only shapes new keys). */
function keyTermsChanged(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  const [previous, next] = [
    licenseKeyProperties(before as BenefitRow["properties"]),
    licenseKeyProperties(after as BenefitRow["properties"]),
  ];
  return (["expires", "activations", "limit_usage", "license_file_ttl_days", "heartbeat"] as const).some(
    (key) => JSON.stringify(previous[key]) !== JSON.stringify(next[key]),
  );
}

/**
 * The benefit's granted grants carry its new license key terms: each key gets the new limits and
 * expiry (a subscription's keys never expire on their own, as when they were issued), and each grant
 * its `benefit_grant.updated`.
 */
async function refreshLicenseKeyGrants(db: Executor, benefit: BenefitRow, now: Date): Promise<void> {
  const grants = await touchGrantedGrantsOfBenefit(db, benefit.id, now);
  const terms = licenseKeyProperties(benefit.properties);
  const keyOf = (grant: (typeof grants)[number]) =>
    typeof grant.properties.license_key_id === "string" ? [grant.properties.license_key_id] : [];
  await applyLicenseKeyTerms(db, grants.filter((grant) => grant.subscription_id === null).flatMap(keyOf), terms, now);
  await applyLicenseKeyTerms(db, grants.filter((grant) => grant.subscription_id !== null).flatMap(keyOf), { ...terms, expires: null }, now);
  // The grant's own properties (its key's id and display) are what they were.
  const previous = new Map(grants.map((grant) => [grant.id, grant.properties as BenefitGrantProperties]));
  await publishGrantEvents(db, "benefit_grant.updated", grants.map((grant) => grant.id).sort(), now, previous);
}

const activeFilesChanged = (before: Record<string, JsonValue>, after: Record<string, JsonValue>): boolean =>
  JSON.stringify(activeFiles(before)) !== JSON.stringify(activeFiles(after));

/**
 * The benefit's granted grants give its new active files: each customer's files are revoked and
 * granted again (the hosted service's way), each grant's properties list them, and each grant
 * gets its `benefit_grant.updated`.
 */
async function refreshDownloadableGrants(db: Executor, benefit: BenefitRow, now: Date): Promise<void> {
  const grants = await touchGrantedGrantsOfBenefit(db, benefit.id, now);
  const previous = new Map(grants.map((grant) => [grant.id, grant.properties as BenefitGrantProperties]));
  for (const grant of grants) await updateGrantProperties(db, grant.id, await grantBenefitFiles(db, benefit, grant.customer_id, now), now);
  await publishGrantEvents(db, "benefit_grant.updated", grants.map((grant) => grant.id).sort(), now, previous);
}

/**
 * Soft-deletes a benefit of the caller's organizations (404 otherwise, 403 when not deletable), in
 * the caller's transaction: every grant still granted is revoked with its license key
 * (`benefit_grant.revoked` each, even when the customer holds it twice), and `benefit.updated`
 * carries the deleted benefit (the hosted service sends no `benefit.deleted`). Taking it off the
 * products that carry it is the products' part (flows/delete-benefit.ts).
 */
export async function retireBenefit(db: Executor, id: string, allowed: OrganizationScope, now: Date): Promise<void> {
  const current = await findBenefitForUpdate(db, id, allowed);
  if (!current) throw new ResourceNotFound();
  if (!current.deletable) throw new NotPermitted();
  const deleted = await updateBenefit(db, id, { is_deleted: true, modified_at: now });
  await afterGrantChanges(db, await revokeBenefitGrants(db, id, now), false, now);
  await recordWebhookEvent(db, { organizationId: deleted.organization_id, type: "benefit.updated", data: toBenefit(deleted), now });
}

export function createBenefitService(deps: Deps) {
  return {
    async create(principal: Principal, input: BenefitCreate): Promise<Benefit> {
      const organization = await targetOrganization(deps.db, principal, input.organization_id);
      await assertReferencesExist(deps.db, organization.id, input);
      const row = await insertBenefit(deps.db, {
        organization_id: organization.id,
        created_at: deps.now(),
        modified_at: null,
        type: input.type,
        description: input.description,
        visibility: input.visibility ?? "public",
        properties: JSON.stringify(storedProperties(input)),
        metadata: JSON.stringify(input.metadata ?? {}),
      });
      return toBenefit(row);
    },

    /** A downloadables benefit's active, uploaded files with their downloads (404 for a benefit of another type). */
    async files(id: string, query: PageRequest, allowed: OrganizationScope): Promise<Page<BenefitDownloadableFile>> {
      const row = await findBenefit(deps.readDb, id, allowed);
      if (!row || row.type !== "downloadables") throw new ResourceNotFound();
      const files = await benefitDownloadableFiles(deps.readDb, id, activeFiles(row.properties));
      const { offset, limit } = pageWindow(query);
      return toPage(files.slice(offset, offset + limit), files.length, query);
    },

    async get(id: string, allowed: OrganizationScope): Promise<Benefit> {
      const row = await findBenefit(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      return toBenefit(row);
    },

    async list(query: BenefitListQuery, allowed: OrganizationScope): Promise<Page<Benefit>> {
      const filter = {
        organizationIds: query.organization_id,
        types: query.type,
        ids: query.id,
        excludeIds: query.exclude_id,
        query: query.query,
        metadata: query.metadata,
      };
      const sorting = parseSorting(query.sorting);
      return paginate(
        query,
        () => countBenefits(deps.readDb, allowed, filter),
        async (offset, limit) => (await pageBenefits(deps.readDb, allowed, filter, sorting, { offset, limit })).map(toBenefit),
      );
    },

    /**
     * Only the fields sent change (`properties` replaced whole, validated as on create); the type
     * never does. New license key terms reach the keys already granted; `benefit.updated` follows.
     */
    async update(id: string, input: BenefitUpdate, allowed: OrganizationScope): Promise<Benefit> {
      return deps.db.transaction().execute(async (trx) => {
        const current = await findBenefitForUpdate(trx, id, allowed);
        if (!current) throw new ResourceNotFound();
        if (input.type !== current.type)
          throw new RequestValidationError([fieldIssue(["body", "type"], "Benefit type cannot be changed.", current.type)]);
        const replaced = replacedProperties(input);
        if (replaced) await assertReferencesExist(trx, current.organization_id, replaced);
        const properties = replaced ? storedProperties(replaced) : null;
        const now = deps.now();
        const row = await updateBenefit(trx, id, {
          modified_at: now,
          ...(input.description ? { description: input.description } : {}),
          ...(input.visibility ? { visibility: input.visibility } : {}),
          ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
          ...(properties ? { properties: JSON.stringify(properties) } : {}),
        });
        if (current.type === "license_keys" && properties && keyTermsChanged(current.properties, properties))
          await refreshLicenseKeyGrants(trx, row, now);
        if (current.type === "downloadables" && properties && activeFilesChanged(current.properties, row.properties))
          await refreshDownloadableGrants(trx, row, now);
        const benefit = toBenefit(row);
        await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "benefit.updated", data: benefit, now });
        return benefit;
      });
    },
  };
}
export type BenefitService = ReturnType<typeof createBenefitService>;
