import type { Deps } from "../../context.ts";
import { ResourceNotFound, RequestValidationError, fieldIssue } from "../../http/errors.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import * as repo from "./organizations.repository.ts";
import { toOrganization } from "./organizations.mapper.ts";
import type { OrganizationResponse } from "./organizations.schemas.ts";
import type { OrganizationCreateBody, OrganizationListQuery, OrganizationUpdateBody } from "./organization-inputs.schemas.ts";
import { organizationChanges } from "./organization-changes.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import type { OrganizationLegalDetails, OrganizationLegalDetailsUpdate } from "./organization-legal-details.schemas.ts";
import type { OrganizationRow } from "./organizations.table.ts";
import { toStoredAddress } from "../../schema/address.ts";
import { normalizeState } from "../../schema/subdivisions.ts";
import { readTaxRegistrations } from "./tax-registrations.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import type { LogoFetchPayload } from "./organizations.tasks.ts";

/** A logo that cannot be fetched after this many tries is given up: the document goes without. */
const LOGO_FETCH_ATTEMPTS = 3;

/**
 * Schedules the fetch of an http(s) avatar URL in the transaction that sets it, so the logo is
 * fetched once when the URL is set and never while a document renders; a `data:` URL carries its image.
 */
async function scheduleLogoFetch(trx: Executor, organizationId: string, avatarUrl: string | null): Promise<void> {
  if (avatarUrl === null || !/^https?:/i.test(avatarUrl)) return;
  const payload: LogoFetchPayload = { organizationId, url: avatarUrl };
  // One pending fetch per organization: a newer URL replaces a fetch not yet run.
  await enqueueJob(trx, TaskName.organizationLogoFetch, payload, {
    jobKey: `organization-logo:${organizationId}`,
    maxAttempts: LOGO_FETCH_ATTEMPTS,
  });
}

const toLegalDetails = (row: OrganizationRow): OrganizationLegalDetails => ({
  registered_name: row.legal_name,
  address: row.legal_address,
  tax_registrations: row.tax_registrations,
});

export function createOrganizationService(deps: Deps) {
  return {
    async create(input: OrganizationCreateBody): Promise<OrganizationResponse> {
      const row = await deps.db.transaction().execute(async (trx) => {
        const inserted = await repo.insertOrganization(trx, {
          name: input.name,
          slug: input.slug,
          avatar_url: input.avatar_url ?? null,
          email: input.email ?? null,
          website: input.website ?? null,
          socials: JSON.stringify(input.socials ?? []),
          country: input.country ?? null,
          default_presentment_currency: input.default_presentment_currency ?? "usd",
          default_tax_behavior: input.default_tax_behavior ?? "location",
          feature_settings: JSON.stringify(input.feature_settings ?? {}),
          subscription_settings: JSON.stringify(input.subscription_settings ?? {}),
          customer_email_settings: JSON.stringify(input.customer_email_settings ?? {}),
          customer_portal_settings: JSON.stringify(input.customer_portal_settings ?? {}),
          invoice_numbering: input.order_settings?.invoice_numbering ?? "customer",
          invoice_prefix: null,
          ...(input.legal_entity?.type === "company" ? { legal_name: input.legal_entity.registered_name } : {}),
        });
        if (inserted) await scheduleLogoFetch(trx, inserted.id, inserted.avatar_url);
        return inserted;
      });
      if (!row) {
        throw new RequestValidationError([fieldIssue(["body", "slug"], "An organization with this slug already exists.", input.slug)]);
      }
      return toOrganization(row);
    },

    async get(id: string, allowed: OrganizationScope): Promise<OrganizationResponse> {
      const row = await repo.findOrganization(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      return toOrganization(row);
    },

    /** The organizations the caller may see (an organization token: its own), `slug` filtering. */
    async list(query: OrganizationListQuery, allowed: OrganizationScope): Promise<Page<OrganizationResponse>> {
      const sorting = parseSorting(query.sorting);
      return paginate(
        query,
        () => repo.countOrganizations(deps.readDb, allowed, query.slug),
        async (offset, limit) =>
          (await repo.listOrganizations(deps.readDb, allowed, query.slug, sorting, offset, limit)).map(toOrganization),
      );
    },

    /**
     * Applies the keys sent, on the locked row so that concurrent updates of the settings merge
     * one after the other; a new http(s) avatar URL schedules its logo fetch.
     */
    async update(id: string, allowed: OrganizationScope, input: OrganizationUpdateBody): Promise<OrganizationResponse> {
      const row = await deps.db.transaction().execute(async (trx) => {
        const current = await repo.findOrganizationForUpdate(trx, id, allowed);
        if (!current) throw new ResourceNotFound();
        const changes = organizationChanges(current, input);
        const updated = await repo.updateOrganization(trx, id, null, { ...changes, modified_at: deps.now() });
        if (!updated) throw new ResourceNotFound();
        if (changes.avatar_url !== undefined && changes.avatar_url !== current.avatar_url)
          await scheduleLogoFetch(trx, id, updated.avatar_url);
        return updated;
      });
      return toOrganization(row);
    },

    async legalDetails(id: string, allowed: OrganizationScope): Promise<OrganizationLegalDetails> {
      const row = await repo.findOrganization(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      return toLegalDetails(row);
    },

    /**
     * Writes the fields sent; an address of a country whose states are checked needs a valid one.
     * The registrations sent replace the stored ones: tax is collected where they say from then on.
     */
    async updateLegalDetails(
      id: string,
      allowed: OrganizationScope,
      input: OrganizationLegalDetailsUpdate,
    ): Promise<OrganizationLegalDetails> {
      const address = input.address ? normalizeState(toStoredAddress(input.address), ["body", "address"]) : input.address;
      const registrations = input.tax_registrations && readTaxRegistrations(input.tax_registrations, ["body", "tax_registrations"]);
      const row = await repo.updateOrganization(deps.db, id, allowed, {
        modified_at: deps.now(),
        ...(input.registered_name !== undefined ? { legal_name: input.registered_name } : {}),
        ...(address !== undefined ? { legal_address: address === null ? null : JSON.stringify(address) } : {}),
        ...(registrations ? { tax_registrations: JSON.stringify(registrations) } : {}),
      });
      if (!row) throw new ResourceNotFound();
      return toLegalDetails(row);
    },
  };
}
export type OrganizationService = ReturnType<typeof createOrganizationService>;
