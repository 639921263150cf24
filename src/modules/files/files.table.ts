import type { ColumnType, Generated, Selectable } from "kysely";

type Json<T> = ColumnType<T, string, string>;

/** A part as its upload announced it: the byte range `[chunk_start, chunk_end)` and its checksum, if given. */
export interface AnnouncedPart {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64: string | null;
}

export interface FilesTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  deleted_at: Date | null;
  organization_id: string;
  service: "downloadable" | "product_media" | "organization_avatar";
  name: string;
  /** The object's key in the blob store. */
  path: string;
  mime_type: string;
  size: number;
  version: string | null;
  checksum_sha256_base64: string | null;
  checksum_sha256_hex: string | null;
  checksum_etag: string | null;
  storage_version: string | null;
  last_modified_at: Date | null;
  is_uploaded: Generated<boolean>;
  is_enabled: Generated<boolean>;
  flagged_malicious_at: Generated<Date | null>;
  upload_id: string;
  upload_parts: Json<AnnouncedPart[]>;
}
export type FileRow = Selectable<FilesTable>;

export interface DownloadablesTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  benefit_id: string;
  file_id: string;
  status: "granted" | "revoked";
  downloaded: Generated<number>;
  last_downloaded_at: Date | null;
}
export type DownloadableRow = Selectable<DownloadablesTable>;
