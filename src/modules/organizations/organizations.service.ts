import type { Deps } from "../../context.ts";
import { ResourceNotFound, RequestValidationError, fieldIssue } from "../../kit/errors.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import * as repo from "./organizations.repository.ts";
import { toOrganization } from "./organizations.mapper.ts";
import type {
  Organization,
  OrganizationCreateBody,
  OrganizationLegalDetails,
  OrganizationLegalDetailsUpdate,
} from "./organizations.schemas.ts";
import type { OrganizationRow } from "./organizations.table.ts";
import { toStoredAddress } from "../../kit/address.ts";
import { normalizeState } from "../../kit/subdivisions.ts";
import { readTaxRegistrations } from "./tax-registrations.ts";

const toLegalDetails = (row: OrganizationRow): OrganizationLegalDetails => ({
  registered_name: row.legal_name,
  address: row.legal_address,
  tax_registrations: row.tax_registrations,
});

export function createOrganizationService(deps: Deps) {
  return {
    async create(input: OrganizationCreateBody): Promise<Organization> {
      const row = await repo.insertOrganization(deps.db, {
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
      if (!row) {
        throw new RequestValidationError([fieldIssue(["body", "slug"], "An organization with this slug already exists.", input.slug)]);
      }
      return toOrganization(row);
    },

    async get(id: string, allowed: OrganizationScope): Promise<Organization> {
      const row = await repo.findOrganization(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
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
