import type { Executor } from "../../db/database.ts";
import type { JsonValue } from "../../db/json.ts";
import { RequestValidationError, fieldIssue } from "../../http/errors.ts";
import { existingFileIds, grantDownloadables, revokeDownloadables } from "../files/files.steps.ts";
import { downloadableGrantHolders } from "./benefit-grants.repository.ts";

// A downloadables benefit gives its customers its active files: the listed ones not archived, in
// list order (the hosted service's rule). Grants give them, revocations take them back.

/** The files a downloadables benefit's properties make active. */
export function activeFiles(properties: Record<string, JsonValue>): string[] {
  const files = Array.isArray(properties.files) ? properties.files.filter((id): id is string => typeof id === "string") : [];
  const archived = (properties.archived ?? {}) as Record<string, JsonValue>;
  return files.filter((id) => archived[id] !== true);
}

/** Each file must be one of the organization's, else "File not found." at its place (the hosted service's message). */
export async function assertFilesExist(db: Executor, organizationId: string, files: readonly string[]): Promise<void> {
  const known = await existingFileIds(db, organizationId, files);
  const issues = files.flatMap((id, i) => (known.has(id) ? [] : [fieldIssue(["body", "properties", "files", i], "File not found.", id)]));
  if (issues.length > 0) throw new RequestValidationError(issues);
}

/** A new grant's properties: the files given, `{files: [ids]}`. */
export async function grantBenefitFiles(
  db: Executor,
  benefit: { id: string; organization_id: string; properties: Record<string, JsonValue> },
  customerId: string,
  now: Date,
): Promise<{ files: string[] }> {
  const files = await grantDownloadables(db, {
    organizationId: benefit.organization_id,
    customerId,
    benefitId: benefit.id,
    fileIds: activeFiles(benefit.properties),
    now,
  });
  return { files };
}

/**
 * After grants changed (revoked, restored): each customer of a downloadables grant among them keeps
 * the benefit's files while any grant of it is still granted to them (two orders of one product
 * give the files once), and loses them otherwise.
 */
export async function followDownloadableGrants(db: Executor, grantIds: readonly string[], now: Date): Promise<void> {
  for (const holder of await downloadableGrantHolders(db, grantIds)) {
    if (holder.still_granted)
      await grantBenefitFiles(
        db,
        { id: holder.benefit_id, organization_id: holder.organization_id, properties: holder.properties },
        holder.customer_id,
        now,
      );
    else await revokeDownloadables(db, [{ customerId: holder.customer_id, benefitId: holder.benefit_id }], now);
  }
}
