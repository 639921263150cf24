// What other modules may do with products inside their own transaction: check which ids are an organization's products.
export { existingProductIds } from "./products.repository.ts";
export { findProductWithRelations, listProducts, productRelations } from "./product-reads.repository.ts";
export { findProductOrganization } from "./products.repository.ts";
export { seatAmount, seatRange } from "./seat-pricing.ts";

// What orders and subscriptions read of their products and prices.
export {
  findProductBilling,
  productIsRecurring,
  productJson,
  productNameMatches,
  productNameOf,
  productNames,
  productPriceRows,
} from "./products.repository.ts";
export { productWithRelationsJson } from "./product-reads.repository.ts";

// Products as other modules embed them in their own statements.
export { pricesOnMeter, selectProducts } from "./product-reads.repository.ts";

// What the customer portal's public organization view lists of its catalog.
export { countProducts, type ProductFilters } from "./product-reads.repository.ts";

// What checkout links check of the products and prices they offer.
export { findPriceProduct, offerableProductIds } from "./products.repository.ts";

// What benefit grants read of their products' benefits (handed to them by services.ts).
export { benefitIdsOfProduct, benefitPositionOnProduct } from "./products.repository.ts";

// What a benefit's deletion does to the products carrying it (flows/delete-benefit.ts).
export { detachBenefitFromProducts } from "./products.repository.ts";
