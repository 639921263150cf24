import { Type, type Static } from "@sinclair/typebox";
import { CheckoutProduct } from "../products/products.schemas.ts";
import { CustomerOrganization } from "../organizations/organization-views.schemas.ts";

export const PortalOrganizationParams = Type.Object({ slug: Type.String({ description: "The organization slug." }) });
export type PortalOrganizationParams = Static<typeof PortalOrganizationParams>;

/** A product as the portal shows it: the checkout's public view (public benefits, no metadata). */
export const CustomerProduct = Type.Object(CheckoutProduct.properties, {
  title: "CustomerProduct",
  description: "Schema of a product for customer portal.",
});

export const CustomerOrganizationData = Type.Object(
  { organization: CustomerOrganization, products: Type.Array(CustomerProduct) },
  { title: "CustomerOrganizationData", description: "Schema of an organization and related data for customer portal." },
);
export type CustomerOrganizationData = Static<typeof CustomerOrganizationData>;
