import type { Deps } from "../../context.ts";
import { ResourceNotFound, RequestValidationError, fieldIssue } from "../../kit/errors.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import * as repo from "./organizations.repository.ts";
import { toOrganization } from "./organizations.mapper.ts";
import type { Organization, OrganizationCreateBody } from "./organizations.schemas.ts";

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
  };
}
export type OrganizationService = ReturnType<typeof createOrganizationService>;
