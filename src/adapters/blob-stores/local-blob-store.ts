import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError } from "../../http/errors.ts";
import { expiryAfter, signFields, signatureMatches } from "../../values/signatures.ts";
import {
  assertSafeKey,
  partChecksumHeaders,
  UploadNotFound,
  UploadPartMissing,
  type BlobStore,
  type CompletedObject,
  type StoredObject,
  type UploadedPart,
} from "./blob-store.ts";

/** Where `blob.routes.ts` serves these files (its route path spells it out). */
const LOCAL_BLOB_ROUTE = "/blobs";

/** Where `blob.routes.ts` takes the parts of multipart uploads (its route path spells it out). */
const LOCAL_PART_ROUTE = "/blob-parts";

/** Multipart uploads in progress: `.multipart/<upload id>/` (no key starts with a dot). */
const MULTIPART_FOLDER = ".multipart";

const md5 = (data: Buffer | string): string => createHash("md5").update(data).digest("hex");

/** A part's PUT whose bytes are not those its checksum header names (S3's answer to the same). */
export class PartChecksumMismatch extends AppError {
  constructor() {
    super(400, "BadDigest", "The part's SHA-256 is not the checksum sent with it.");
  }
}

/** `put`'s temporary files: `<key>.<12 hex digits>.tmp` (the body) and `<key>.<12 hex digits>.tmp.meta`. */
const TEMP_FILE = /\.[0-9a-f]{12}\.tmp(\.meta)?$/;

/** What `operation` answers, or null when its file is gone (renamed by its writer, or removed by another process). */
async function unlessGone<T>(operation: Promise<T>): Promise<T | null> {
  try {
    return await operation;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * A link was asked for a file this instance's disk does not have. Local storage belongs to one
 * instance: behind a load balancer the file is on whichever instance's worker wrote it, and a link
 * from here would only answer 403. Several instances need shared storage (STORAGE_DRIVER=s3).
 */
export class BlobNotOnThisInstance extends AppError {
  constructor() {
    super(
      503,
      "DocumentUnavailable",
      "This instance does not have the document in its local storage. Several instances need shared storage (STORAGE_DRIVER=s3).",
      { "retry-after": "5" },
    );
  }
}

export interface SignedPartRequest {
  uploadId: string;
  partNumber: number;
  expires: number;
  signature: string;
  /** The `x-amz-checksum-sha256` header sent, if any. */
  checksum: string | null;
  body: Buffer;
}

export interface SignedBlobRequest {
  key: string;
  expires: number;
  filename: string;
  signature: string;
}

/**
 * Files on local disk under DATA_DIR, downloaded through the API itself with HMAC-signed,
 * expiring URLs. Metadata sits beside each file as JSON.
 */
export class LocalBlobStore implements BlobStore {
  private readonly root: string;
  private readonly publicBaseUrl: string;
  private readonly secret: string;
  private readonly now: () => Date;

  constructor(root: string, publicBaseUrl: string, secret: string, now: () => Date) {
    this.root = root;
    this.publicBaseUrl = publicBaseUrl;
    this.secret = secret;
    this.now = now;
  }

  private file(key: string): string {
    assertSafeKey(key);
    // An object named like a temporary file would be taken for a crash's leftover and removed.
    if (TEMP_FILE.test(key)) throw new Error(`unsafe storage key: ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, body: Buffer, meta: StoredObject): Promise<void> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(`${temp}.meta`, JSON.stringify(meta));
    await writeFile(temp, body);
    // Renames are atomic on one file system: a reader sees the old object or the new one.
    await rename(`${temp}.meta`, `${target}.meta.json`);
    await rename(temp, target);
  }

  /**
   * A process killed mid-`put` leaves its temporary files. A write in flight, here or in another
   * process sharing the folder, renames its files within moments of writing them: a file last
   * modified before `startedBefore` belongs to none.
   */
  async removeAbandonedWrites(startedBefore: Date): Promise<number> {
    // No folder yet: the first write makes it.
    const names = (await unlessGone(readdir(this.root, { recursive: true }))) ?? [];
    let removed = 0;
    for (const name of names.filter((candidate) => TEMP_FILE.test(candidate))) {
      const file = path.join(this.root, name);
      const modified = await unlessGone(stat(file));
      if (modified === null || modified.mtime >= startedBefore) continue;
      if ((await unlessGone(unlink(file).then(() => true))) !== null) removed += 1;
    }
    // Multipart uploads opened before then and never completed (their part links expired long ago).
    const uploads = (await unlessGone(readdir(path.join(this.root, MULTIPART_FOLDER)))) ?? [];
    for (const uploadId of uploads) {
      const opened = await unlessGone(stat(path.join(this.root, MULTIPART_FOLDER, uploadId, "upload.json")));
      if (opened === null || opened.mtime >= startedBefore) continue;
      await rm(path.join(this.root, MULTIPART_FOLDER, uploadId), { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.file(key)).then(
      () => true,
      () => false,
    );
  }

  /** Refuses (503 `DocumentUnavailable`) a key whose file is not on this instance's disk. */
  async downloadUrl(key: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    if (!(await this.exists(key))) throw new BlobNotOnThisInstance();
    const expires = expiryAfter(this.now(), options.expiresInSeconds);
    const query = new URLSearchParams({
      expires: String(expires),
      filename: options.filename,
      signature: signFields(this.secret, ["blob", key, expires, options.filename]),
    });
    return `${this.publicBaseUrl}${LOCAL_BLOB_ROUTE}/${key}?${query.toString()}`;
  }

  async downloadOrigin(): Promise<string> {
    return new URL(this.publicBaseUrl).origin;
  }

  /** The object for a signed request, or null when the signature is wrong or expired (indistinguishable). */
  async open(request: SignedBlobRequest): Promise<{ body: Buffer; meta: StoredObject } | null> {
    if (!signatureMatches(this.secret, ["blob", request.key, request.expires, request.filename], request.signature)) return null;
    if (request.expires < Math.floor(this.now().getTime() / 1000)) return null;
    try {
      const target = this.file(request.key);
      const [body, meta] = await Promise.all([readFile(target), readFile(`${target}.meta.json`, "utf8")]);
      return { body, meta: JSON.parse(meta) as StoredObject };
    } catch {
      return null;
    }
  }

  async read(key: string): Promise<Readable> {
    const target = this.file(key);
    await stat(target);
    return createReadStream(target);
  }

  async remove(key: string): Promise<void> {
    const target = this.file(key);
    await rm(target, { force: true });
    await rm(`${target}.meta.json`, { force: true });
  }

  private uploadFolder(uploadId: string): string {
    if (!/^[0-9a-f]{32}$/.test(uploadId)) throw new UploadNotFound();
    return path.join(this.root, MULTIPART_FOLDER, uploadId);
  }

  async startMultipartUpload(key: string, meta: StoredObject): Promise<string> {
    this.file(key);
    const uploadId = randomBytes(16).toString("hex");
    const folder = this.uploadFolder(uploadId);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "upload.json"), JSON.stringify({ key, meta }));
    return uploadId;
  }

  private partFields(uploadId: string, partNumber: number, expires: number, checksum: string | null) {
    return ["blob-part", uploadId, partNumber, expires, checksum ?? ""];
  }

  /** A signed, expiring URL of this API; the checksum, when given, is part of what is signed. */
  async partUploadUrl(
    _key: string,
    uploadId: string,
    part: { number: number; checksumSha256Base64: string | null; expiresInSeconds: number },
  ): Promise<{ url: string; headers: Record<string, string> }> {
    const expires = expiryAfter(this.now(), part.expiresInSeconds);
    const query = new URLSearchParams({
      expires: String(expires),
      signature: signFields(this.secret, this.partFields(uploadId, part.number, expires, part.checksumSha256Base64)),
    });
    return {
      url: `${this.publicBaseUrl}${LOCAL_PART_ROUTE}/${uploadId}/${part.number}?${query.toString()}`,
      headers: partChecksumHeaders(part.checksumSha256Base64),
    };
  }

  /**
   * Stores a part sent to its signed URL, answering its ETag (the MD5 of its bytes, as S3's), or
   * null when the link is wrong, expired, or its upload is gone. A part sent again replaces the
   * first, as at S3. Refuses (`PartChecksumMismatch`) bytes whose SHA-256 is not the checksum.
   */
  async receivePart(request: SignedPartRequest): Promise<string | null> {
    const fields = this.partFields(request.uploadId, request.partNumber, request.expires, request.checksum);
    if (!signatureMatches(this.secret, fields, request.signature)) return null;
    if (request.expires < Math.floor(this.now().getTime() / 1000)) return null;
    const folder = this.uploadFolder(request.uploadId);
    if ((await unlessGone(stat(path.join(folder, "upload.json")))) === null) return null;
    if (request.checksum !== null && createHash("sha256").update(request.body).digest("base64") !== request.checksum)
      throw new PartChecksumMismatch();
    const temp = path.join(folder, `${request.partNumber}.${randomBytes(6).toString("hex")}.tmp`);
    await writeFile(temp, request.body);
    await rename(temp, path.join(folder, `${request.partNumber}.part`));
    return md5(request.body);
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: readonly UploadedPart[]): Promise<CompletedObject> {
    const folder = this.uploadFolder(uploadId);
    const opened = await unlessGone(readFile(path.join(folder, "upload.json"), "utf8"));
    const upload = opened === null ? null : (JSON.parse(opened) as { key: string; meta: StoredObject });
    if (upload === null || upload.key !== key) throw new UploadNotFound();
    const ordered = [...parts].sort((a, b) => a.number - b.number);
    const etags: string[] = [];
    for (const part of ordered) {
      const bytes = await unlessGone(readFile(path.join(folder, `${part.number}.part`)));
      if (bytes === null || md5(bytes) !== part.etag.replace(/"/g, "")) throw new UploadPartMissing(part.number);
      etags.push(md5(bytes));
    }
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    const out = createWriteStream(temp);
    for (const part of ordered) await pipeline(createReadStream(path.join(folder, `${part.number}.part`)), out, { end: false });
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    await writeFile(`${temp}.meta`, JSON.stringify(upload.meta));
    await rename(`${temp}.meta`, `${target}.meta.json`);
    await rename(temp, target);
    await rm(folder, { recursive: true, force: true });
    // S3's multipart ETag: the MD5 of the parts' MD5s, then the number of parts.
    return { etag: `${md5(Buffer.from(etags.join(""), "hex"))}-${ordered.length}`, lastModified: this.now(), version: null };
  }
}
