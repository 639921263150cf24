import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { sizeReadable } from "../../values/byte-sizes.ts";
import type { BenefitDownloadableFile, FileDownload, FileRead, FileUpload } from "./files.schemas.ts";
import type { FileRow } from "./files.table.ts";

/** Where a public file (a product's media, an avatar) is served (`files.routes.ts`). */
export const publicFilePath = (id: string) => `/files/public/${id}`;

const common = (row: FileRow) => ({
  id: row.id,
  organization_id: row.organization_id,
  name: row.name,
  path: row.path,
  mime_type: row.mime_type,
  size: row.size,
  storage_version: row.storage_version,
  checksum_etag: row.checksum_etag,
  checksum_sha256_base64: row.checksum_sha256_base64,
  checksum_sha256_hex: row.checksum_sha256_hex,
  last_modified_at: toIsoOrNull(row.last_modified_at),
  version: row.version,
});

export function toFileRead(row: FileRow, publicBaseUrl: string): FileRead {
  const read = { ...common(row), is_uploaded: row.is_uploaded, created_at: toIso(row.created_at), size_readable: sizeReadable(row.size) };
  if (row.service === "downloadable")
    return { ...read, service: "downloadable", flagged_malicious_at: toIsoOrNull(row.flagged_malicious_at) };
  return { ...read, service: row.service, public_url: `${publicBaseUrl}${publicFilePath(row.id)}` };
}

export const toFileUpload = (row: FileRow, upload: FileUpload["upload"]): FileUpload => ({
  ...common(row),
  upload,
  is_uploaded: row.is_uploaded,
  service: row.service,
  size_readable: sizeReadable(row.size),
});

export const toFileDownload = (row: FileRow, download: FileDownload["download"]): FileDownload => ({
  ...common(row),
  download,
  is_uploaded: row.is_uploaded,
  service: row.service,
  size_readable: sizeReadable(row.size),
});

export const toBenefitDownloadableFile = (
  row: FileRow & { downloads: number | null; downloaders: number | null },
): BenefitDownloadableFile => ({
  ...common(row),
  service: "downloadable",
  is_uploaded: row.is_uploaded,
  created_at: toIso(row.created_at),
  flagged_malicious_at: toIsoOrNull(row.flagged_malicious_at),
  size_readable: sizeReadable(row.size),
  downloads: row.downloads ?? 0,
  downloaders: row.downloaders ?? 0,
});
