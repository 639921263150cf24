import type { Deps } from "../../context.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { toCustomerOrganization } from "../organizations/organizations.mapper.ts";
import { findOrganizationBySlug, findOrganization } from "../organizations/organizations.steps.ts";
import { toCheckoutProduct } from "../products/products.mapper.ts";
import { countProducts, listProducts, type ProductFilters } from "../products/products.steps.ts";
import type { CustomerOrganizationData } from "./portal-organizations.schemas.ts";

/** The public portal view of an organization: anyone may read what its portal and checkout already show. */
export function createPortalOrganizationService(deps: Deps) {
  return {
    /** The organization of the slug with its public, unarchived products, oldest first (docs/decisions.md). */
    async get(slug: string): Promise<CustomerOrganizationData> {
      const found = await findOrganizationBySlug(deps.readDb, slug);
      const organization = found && (await findOrganization(deps.readDb, found.id, null));
      if (!organization) throw new ResourceNotFound();
      const filters: ProductFilters = {
        ids: null,
        organizationIds: [organization.id],
        isArchived: false,
        benefitIds: null,
        visibility: ["public"],
      };
      const total = await countProducts(deps.readDb, null, filters);
      const products = total ? await listProducts(deps.readDb, null, filters, [{ key: "created_at", direction: "asc" }], 0, total) : [];
      return { organization: toCustomerOrganization(organization), products: products.map(toCheckoutProduct) };
    },
  };
}
export type PortalOrganizationService = ReturnType<typeof createPortalOrganizationService>;
