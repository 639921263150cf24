// What other modules may do with organizations inside their own transaction: find one by id or by slug.
export { findOrganization, findOrganizationBySlug } from "./organizations.repository.ts";
export { targetOrganization } from "./organization-target.ts";
export { findOrganizationIds } from "./organizations.repository.ts";

// Organizations as other modules join them in their own statements.
export { organizationClocks, organizationSlug } from "./organizations.repository.ts";
