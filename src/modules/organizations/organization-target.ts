import type { Executor } from "../../db/database.ts";
import type { Principal } from "../../http/auth.ts";
import { RequestValidationError, valueError, fieldIssue } from "../../http/errors.ts";
import { findOrganization } from "./organizations.repository.ts";

/**
 * The organization a create request writes into: an organization token's own (it may not name
 * another), or, for the instance owner, the `organization_id` of the body, which is then required.
 */
export async function targetOrganization(db: Executor, principal: Principal, organizationId: string | null | undefined) {
  const loc = ["body", "organization_id"];
  if (principal.kind !== "user") {
    if (organizationId !== undefined && organizationId !== null && organizationId !== principal.organizationId) {
      throw valueError(loc, "Setting organization_id is disallowed when using an organization token.", organizationId);
    }
    const own = await findOrganization(db, principal.organizationId, null);
    if (!own) throw valueError(loc, "Organization not found.", principal.organizationId);
    return own;
  }
  if (organizationId === undefined || organizationId === null) {
    throw new RequestValidationError([fieldIssue(loc, "organization_id is required.", organizationId ?? null, "missing")]);
  }
  const organization = await findOrganization(db, organizationId, null);
  if (!organization) throw valueError(loc, "Organization not found.", organizationId);
  return organization;
}
