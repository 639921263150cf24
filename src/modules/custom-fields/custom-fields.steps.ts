// What other modules may do with custom fields inside their own transaction: check ids, attach fields to a product.
export { attachCustomFields, existingCustomFieldIds } from "./custom-fields.repository.ts";
export { checkCustomFieldData } from "./custom-field-data.ts";

// The fields a product shows, embedded in the products' statements.
export { attachedCustomFields } from "./custom-fields.repository.ts";
