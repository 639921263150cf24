import type { Readable } from "node:stream";

/** Where generated documents (invoice and receipt PDFs) and uploaded files live, and how clients download them. */
export interface StoredObject {
  contentType: string;
  /** Name the browser saves the download as. */
  filename: string;
  cacheControl?: string;
}

export interface BlobStore {
  /** Writes the object whole: readers never see a partial file. Overwrites an existing key. */
  put(key: string, body: Buffer, meta: StoredObject): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** A time-limited download URL, usable without other credentials. */
  downloadUrl(key: string, options: { filename: string; expiresInSeconds: number }): Promise<string>;
  /** The origin of the download URLs (a page showing stored images allows it in its CSP). */
  downloadOrigin(): Promise<string>;
  /**
   * Removes what writes begun before `startedBefore` left behind unfinished (a process killed
   * mid-write): temporary files, incomplete multipart uploads. Answers how many were removed.
   */
  removeAbandonedWrites(startedBefore: Date): Promise<number>;
  /** The object's bytes, streamed. */
  read(key: string): Promise<Readable>;
  /** Removes the object; removing one already gone is no error. */
  remove(key: string): Promise<void>;
  /** Opens a multipart upload of `key` (clients send the parts themselves): its upload id. */
  startMultipartUpload(key: string, meta: StoredObject): Promise<string>;
  /**
   * A time-limited URL a client PUTs one part's bytes to (with `headers`), answered with the part's
   * ETag. With a checksum, the part is refused unless its SHA-256 is that one.
   */
  partUploadUrl(
    key: string,
    uploadId: string,
    part: { number: number; checksumSha256Base64: string | null; expiresInSeconds: number },
  ): Promise<{ url: string; headers: Record<string, string> }>;
  /**
   * Joins the uploaded parts, in number order, into the object. A part never uploaded, or whose
   * ETag is not the one given, rejects with `UploadPartMissing`; an unknown upload with `UploadNotFound`.
   */
  completeMultipartUpload(key: string, uploadId: string, parts: readonly UploadedPart[]): Promise<CompletedObject>;
}

export interface UploadedPart {
  number: number;
  etag: string;
}

export interface CompletedObject {
  etag: string;
  lastModified: Date;
  /** The store's version of the object, where it keeps versions. */
  version: string | null;
}

/** A part the completion names was never uploaded (or not with that ETag). */
export class UploadPartMissing extends Error {
  readonly partNumber: number | null;
  constructor(partNumber: number | null) {
    super(partNumber === null ? "a part was not uploaded" : `part ${partNumber} was not uploaded`);
    this.partNumber = partNumber;
  }
}

/** The multipart upload is unknown to the store (never opened, or already completed or aborted). */
export class UploadNotFound extends Error {
  constructor() {
    super("no such multipart upload");
  }
}

/** The headers a part's PUT carries when its checksum was given (as S3 expects them). */
export const partChecksumHeaders = (checksumSha256Base64: string | null): Record<string, string> =>
  checksumSha256Base64 === null ? {} : { "x-amz-checksum-sha256": checksumSha256Base64, "x-amz-sdk-checksum-algorithm": "SHA256" };

/** Keys are path-like (`invoices/<org>/<order>.pdf`); nothing that could climb out of a folder. */
export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/.test(key) || key.includes("..")) {
    throw new Error(`unsafe storage key: ${key}`);
  }
}
