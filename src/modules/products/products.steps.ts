// What other modules may do with products inside their own transaction: check which ids are an organization's products.
export { existingProductIds } from "./products.repository.ts";
