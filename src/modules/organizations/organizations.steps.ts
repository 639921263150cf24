// What other modules may do with organizations inside their own transaction: find one by id or by slug.
export { findOrganization, findOrganizationBySlug } from "./organizations.repository.ts";
export { targetOrganization } from "./organization-target.ts";
export { findOrganizationIds } from "./organizations.repository.ts";

// The sandbox clock's offset, read and set by the test clock.
export { findClockOffset, setClockOffset } from "./organizations.repository.ts";

// What orders and subscriptions read of their organizations.
export { organizationNameMatches, organizationNameOf, organizationsWithDue } from "./organizations.repository.ts";

// What an order's documents read of the seller.
export { numberingOrganization, organizationForDocument } from "./organizations.repository.ts";

// Organizations as other modules join them in their own statements.
export { organizationClocks, organizationSlug } from "./organizations.repository.ts";

// Who an organization's emails come from, when it set its own sender (an extension of this service).
