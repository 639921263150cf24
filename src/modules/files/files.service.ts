import { randomUUID } from "node:crypto";
import type { BlobStore } from "../../adapters/blob-stores/blob-store.ts";
import { UploadNotFound, UploadPartMissing } from "../../adapters/blob-stores/blob-store.ts";
import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { asList, paginate, type Page } from "../../schema/pagination.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import { digestObject, sha256Hex } from "./file-checksums.ts";
import type { FileCreate, FileListQuery, FilePatch, FileUploadCompleted } from "./file-inputs.schemas.ts";
import { toFileRead, toFileUpload } from "./files.mapper.ts";
import { countFiles, findFile, findFileForUpdate, insertFile, pageFiles, updateFile } from "./files.repository.ts";
import type { FileRead, FileUpload } from "./files.schemas.ts";
import type { AnnouncedPart, FileRow } from "./files.table.ts";

/** How long a part's upload URL works, as the hosted service's (an hour). */
export const PART_URL_TTL_SECONDS = 3600;

/** A file's name as a storage key segment: what could not be a key becomes `_` (the row keeps the name). */
const keySegment = (name: string): string =>
  name
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^[._-]+/, "")
    .replace(/\.\.+/g, "_") || "file";

/**
 * The parts, in number order, must cover the file's bytes exactly, each after the last: the
 * completion checks each part's checksum over its range (the hosted service checks neither).
 */
function partIssues(input: FileCreate): ValidationIssue[] {
  const parts = input.upload.parts;
  const loc = (i: number) => ["body", "upload", "parts", i];
  const seen = new Set<number>();
  const issues: ValidationIssue[] = [];
  parts.forEach((part, i) => {
    if (seen.has(part.number)) issues.push(fieldIssue([...loc(i), "number"], `Part ${part.number} is announced twice.`, part.number));
    seen.add(part.number);
  });
  if (issues.length > 0) return issues;
  let next = 0;
  for (const part of [...parts].sort((a, b) => a.number - b.number)) {
    if (part.chunk_start !== next || part.chunk_end <= part.chunk_start)
      return [fieldIssue(loc(parts.indexOf(part)), "Parts must cover the file's bytes in number order, without gaps or overlaps.", part)];
    next = part.chunk_end;
  }
  if (next !== input.size)
    return [fieldIssue(["body", "upload", "parts"], `The parts cover ${next} bytes; the file has ${input.size}.`, null)];
  return [];
}

/** What the completion's list of parts gets wrong against the parts announced. */
function completionIssues(announced: readonly AnnouncedPart[], input: FileUploadCompleted): ValidationIssue[] {
  const byNumber = new Map(announced.map((part) => [part.number, part]));
  const seen = new Set<number>();
  const issues: ValidationIssue[] = [];
  input.parts.forEach((part, i) => {
    const loc = ["body", "parts", i];
    const expected = byNumber.get(part.number);
    if (seen.has(part.number)) issues.push(fieldIssue([...loc, "number"], `Part ${part.number} is listed twice.`, part.number));
    else if (!expected)
      issues.push(fieldIssue([...loc, "number"], `Part ${part.number} was not announced when the upload opened.`, part.number));
    else if (expected.checksum_sha256_base64 !== null && part.checksum_sha256_base64 !== expected.checksum_sha256_base64)
      issues.push(
        fieldIssue(
          [...loc, "checksum_sha256_base64"],
          `Part ${part.number}'s checksum is not the one announced.`,
          part.checksum_sha256_base64,
        ),
      );
    seen.add(part.number);
  });
  for (const part of announced)
    if (!seen.has(part.number)) issues.push(fieldIssue(["body", "parts"], `Part ${part.number} was not uploaded.`, null, "missing"));
  return issues;
}

const refuse = (loc: (string | number)[], message: string, input: unknown = null) =>
  new RequestValidationError([fieldIssue(loc, message, input)]);

export function createFileService(deps: Deps, blobs: BlobStore) {
  const read = (row: FileRow) => toFileRead(row, deps.config.publicBaseUrl);

  /** After the parts are joined: the object's bytes against what the seller announced; a mismatch removes it. */
  async function verifyObject(row: FileRow): Promise<void> {
    const digests = await digestObject(await blobs.read(row.path), row.upload_parts);
    const mismatch =
      digests.size !== row.size
        ? refuse(["body", "parts"], `The uploaded file has ${digests.size} bytes; ${row.size} were announced.`)
        : (row.upload_parts
            .filter((part) => part.checksum_sha256_base64 !== null && digests.parts.get(part.number) !== part.checksum_sha256_base64)
            .map((part) => refuse(["body", "parts"], `Part ${part.number}'s bytes do not have the SHA-256 announced for it.`))[0] ??
          (row.checksum_sha256_base64 !== null && digests.sha256 !== row.checksum_sha256_base64
            ? refuse(["body", "parts"], "The uploaded file's SHA-256 is not the checksum_sha256_base64 announced.")
            : null));
    if (mismatch) {
      await blobs.remove(row.path);
      throw mismatch;
    }
  }

  return {
    async list(query: FileListQuery, allowed: OrganizationScope): Promise<Page<FileRead>> {
      const filter = { organizationIds: asList(query.organization_id), ids: asList(query.ids) };
      return paginate(
        query,
        () => countFiles(deps.readDb, allowed, filter),
        async (offset, limit) => (await pageFiles(deps.readDb, allowed, filter, { offset, limit })).map(read),
      );
    },

    /** Opens a multipart upload in the store and answers where each part goes (201). */
    async create(principal: Principal, input: FileCreate): Promise<FileUpload> {
      const organization = await targetOrganization(deps.db, principal, input.organization_id);
      const issues = partIssues(input);
      if (issues.length > 0) throw new RequestValidationError(issues);
      const id = randomUUID();
      const path = `${input.service}/${organization.id}/${id}/${keySegment(input.name)}`;
      const uploadId = await blobs.startMultipartUpload(path, { contentType: input.mime_type, filename: input.name });
      const now = deps.now();
      const announced = input.upload.parts.map((part) => ({
        number: part.number,
        chunk_start: part.chunk_start,
        chunk_end: part.chunk_end,
        checksum_sha256_base64: part.checksum_sha256_base64 ?? null,
      }));
      const expiresAt = new Date(now.getTime() + PART_URL_TTL_SECONDS * 1000).toISOString();
      const parts = [];
      for (const part of announced) {
        const link = await blobs.partUploadUrl(path, uploadId, {
          number: part.number,
          checksumSha256Base64: part.checksum_sha256_base64,
          expiresInSeconds: PART_URL_TTL_SECONDS,
        });
        parts.push({ ...part, url: link.url, expires_at: expiresAt, headers: link.headers });
      }
      const checksum = input.checksum_sha256_base64 ?? null;
      const row = await insertFile(deps.db, {
        id,
        created_at: now,
        modified_at: null,
        deleted_at: null,
        organization_id: organization.id,
        service: input.service,
        name: input.name,
        path,
        mime_type: input.mime_type,
        size: input.size,
        version: input.version ?? null,
        checksum_sha256_base64: checksum,
        checksum_sha256_hex: checksum === null ? null : sha256Hex(checksum),
        checksum_etag: null,
        storage_version: null,
        last_modified_at: null,
        upload_id: uploadId,
        upload_parts: JSON.stringify(announced),
      });
      return toFileUpload(row, { id: uploadId, path, parts });
    },

    /**
     * Joins the uploaded parts and checks the bytes against the checksums announced; only then is
     * the file uploaded. A refusal writes nothing (a checksum mismatch also removes the joined object).
     */
    async completeUpload(id: string, input: FileUploadCompleted, allowed: OrganizationScope): Promise<FileRead> {
      const row = await findFile(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      if (row.is_uploaded) throw refuse(["body", "id"], "The file is already uploaded.", input.id);
      // The hosted service completes whatever upload the body names; here it must be the file's own.
      if (input.id !== row.upload_id) throw refuse(["body", "id"], "This is not the file's upload.", input.id);
      if (input.path !== row.path) throw refuse(["body", "path"], "This is not the file's path.", input.path);
      const issues = completionIssues(row.upload_parts, input);
      if (issues.length > 0) throw new RequestValidationError(issues);
      const parts = input.parts.map((part) => ({ number: part.number, etag: part.checksum_etag }));
      let completed;
      try {
        completed = await blobs.completeMultipartUpload(row.path, row.upload_id, parts);
      } catch (error) {
        if (error instanceof UploadPartMissing)
          throw refuse(
            ["body", "parts"],
            error.partNumber === null
              ? "A part was not uploaded, or not with the ETag given."
              : `Part ${error.partNumber} was not uploaded, or not with the ETag given.`,
          );
        if (error instanceof UploadNotFound) throw refuse(["body", "id"], "This upload is no longer open; start a new one.", input.id);
        throw error;
      }
      await verifyObject(row);
      return read(
        await updateFile(deps.db, row.id, {
          is_uploaded: true,
          checksum_etag: completed.etag,
          last_modified_at: completed.lastModified,
          storage_version: completed.version,
          modified_at: deps.now(),
        }),
      );
    },

    /** Changes the name and the version when given (an empty or null value leaves them, as the hosted service's). */
    async update(id: string, input: FilePatch, allowed: OrganizationScope): Promise<FileRead> {
      return deps.db.transaction().execute(async (trx) => {
        const row = await findFileForUpdate(trx, id, allowed);
        if (!row) throw new ResourceNotFound();
        return read(
          await updateFile(trx, id, {
            modified_at: deps.now(),
            ...(input.name ? { name: input.name } : {}),
            ...(input.version ? { version: input.version } : {}),
          }),
        );
      });
    },

    /** Soft-deletes the file and removes its object (a customer's links to it stop working). */
    async remove(id: string, allowed: OrganizationScope): Promise<void> {
      const row = await deps.db.transaction().execute(async (trx) => {
        const found = await findFileForUpdate(trx, id, allowed);
        if (!found) throw new ResourceNotFound();
        return updateFile(trx, id, { deleted_at: deps.now(), modified_at: deps.now() });
      });
      if (row.is_uploaded) await blobs.remove(row.path);
    },
  };
}
export type FileService = ReturnType<typeof createFileService>;
