import type { Executor } from "../../db/database.ts";
import { toBenefitDownloadableFile } from "./files.mapper.ts";
import { existingFileIds, filesWithDownloads, grantDownloadableRows, revokeDownloadableRows } from "./files.repository.ts";
import type { BenefitDownloadableFile } from "./files.schemas.ts";

export type { BenefitDownloadableFile };

// What benefits do with files: check a downloadables benefit's files, give customers their files
// and take them back, and show a benefit's files with their downloads.

export { existingFileIds };

/**
 * The customer's files through the benefit become exactly `fileIds` (those still live; a deleted
 * one is skipped, as the hosted service's): the others are revoked, these granted (again).
 * Answers the ids granted, in the benefit's order.
 */
export async function grantDownloadables(
  db: Executor,
  input: { organizationId: string; customerId: string; benefitId: string; fileIds: readonly string[]; now: Date },
): Promise<string[]> {
  const live = await existingFileIds(db, input.organizationId, input.fileIds);
  const granted = input.fileIds.filter((id) => live.has(id));
  await revokeDownloadableRows(db, [{ customerId: input.customerId, benefitId: input.benefitId }], input.now);
  await grantDownloadableRows(
    db,
    granted.map((fileId) => ({
      created_at: input.now,
      modified_at: null,
      organization_id: input.organizationId,
      customer_id: input.customerId,
      benefit_id: input.benefitId,
      file_id: fileId,
    })),
    input.now,
  );
  return granted;
}

/** The customers lose the benefit's files. */
export const revokeDownloadables = revokeDownloadableRows;

/** The benefit's uploaded downloadable files among `fileIds`, in that order, with their downloads. */
export async function benefitDownloadableFiles(
  db: Executor,
  benefitId: string,
  fileIds: readonly string[],
): Promise<BenefitDownloadableFile[]> {
  const byId = new Map((await filesWithDownloads(db, benefitId, fileIds)).map((row) => [row.id, row]));
  return fileIds.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toBenefitDownloadableFile(row)] : [];
  });
}

// What the portal serves of files: a customer's downloadables and their links.
export { DownloadableListQuery, DownloadTokenParams } from "./file-inputs.schemas.ts";
export { ListResourceBenefitDownloadableFile, ListResourceDownloadableRead } from "./files.schemas.ts";
export type { DownloadableService } from "./downloadables.service.ts";
