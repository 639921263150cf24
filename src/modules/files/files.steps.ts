import type { Executor } from "../../db/database.ts";
import { toBenefitDownloadableFile } from "./files.mapper.ts";
import { emailDownloadLinkPath, signEmailDownloadToken } from "./download-links.ts";
import { publicFilePath } from "./files.mapper.ts";
import {
  customerDownloadablesOf,
  uploadedProductMedias,
  existingFileIds,
  filesWithDownloads,
  grantDownloadableRows,
  revokeDownloadableRows,
} from "./files.repository.ts";
import type { BenefitDownloadableFile } from "./files.schemas.ts";

export type { BenefitDownloadableFile };

// What benefits do with files: check a downloadables benefit's files, give customers their files
// and take them back, and show a benefit's files with their downloads.

export { existingFileIds };
export { deletedFileIds } from "./files.repository.ts";

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

/** A file a grant gave, as an order's email and page list it: a link that does not expire (`/downloads/…`). */
export interface GrantedFile {
  name: string;
  size: number;
  url: string;
}

/**
 * The files the customer holds now through each of these grants, in the grant's order, each with
 * an order email's link (signed with `secret`, on `baseUrl`). A benefit without files is absent.
 */
export async function grantedFilesByBenefit(
  db: Executor,
  link: { secret: string; baseUrl: string },
  customerId: string,
  grants: readonly { benefit_id: string; properties: Record<string, unknown> }[],
): Promise<Map<string, GrantedFile[]>> {
  const held = await customerDownloadablesOf(
    db,
    customerId,
    grants.filter((grant) => Array.isArray(grant.properties.files)).map((grant) => grant.benefit_id),
  );
  const byGrant = new Map(held.map((row) => [`${row.benefit_id}:${row.file_id}`, row]));
  return new Map(
    grants.flatMap((grant) => {
      const fileIds = Array.isArray(grant.properties.files) ? (grant.properties.files as unknown[]) : [];
      const files = fileIds.flatMap((fileId) => {
        const row = byGrant.get(`${grant.benefit_id}:${String(fileId)}`);
        if (!row) return [];
        const url = `${link.baseUrl}${emailDownloadLinkPath(signEmailDownloadToken(link.secret, row.downloadable_id))}`;
        return [{ name: row.name, size: row.size, url }];
      });
      return files.length > 0 ? [[grant.benefit_id, files] as const] : [];
    }),
  );
}

/** An uploaded product media as a product's media row holds it (the file's fields, its public URL). */
export interface ProductMediaAttachment {
  file_id: string;
  created_at: Date;
  name: string;
  path: string;
  mime_type: string;
  size: number;
  checksum_sha256_base64: string | null;
  checksum_sha256_hex: string | null;
  public_url: string;
}

/** The organization's uploaded product medias among the ids, as a product attaches them. */
export async function productMediaAttachments(
  db: Executor,
  publicBaseUrl: string,
  organizationId: string,
  ids: readonly string[],
): Promise<ProductMediaAttachment[]> {
  return (await uploadedProductMedias(db, organizationId, ids)).map((row) => ({
    file_id: row.id,
    created_at: row.created_at,
    name: row.name,
    path: row.path,
    mime_type: row.mime_type,
    size: row.size,
    checksum_sha256_base64: row.checksum_sha256_base64,
    checksum_sha256_hex: row.checksum_sha256_hex,
    public_url: `${publicBaseUrl}${publicFilePath(row.id)}`,
  }));
}

// What the portal serves of files: a customer's downloadables and their links.
export { DownloadableListQuery, DownloadTokenParams } from "./file-inputs.schemas.ts";
export { ListResourceBenefitDownloadableFile, ListResourceDownloadableRead } from "./files.schemas.ts";
export type { DownloadableService } from "./downloadables.service.ts";
