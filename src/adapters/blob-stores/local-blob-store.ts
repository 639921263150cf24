import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../http/errors.ts";
import { assertSafeKey, type BlobStore, type StoredObject } from "./blob-store.ts";

/** Where `blob.routes.ts` serves these files (its route path spells it out). */
const LOCAL_BLOB_ROUTE = "/blobs";

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
    return removed;
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.file(key)).then(
      () => true,
      () => false,
    );
  }

  private sign(key: string, expires: number, filename: string): string {
    return createHmac("sha256", this.secret).update(`blob\n${key}\n${expires}\n${filename}`).digest("base64url");
  }

  /** Refuses (503 `DocumentUnavailable`) a key whose file is not on this instance's disk. */
  async downloadUrl(key: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    if (!(await this.exists(key))) throw new BlobNotOnThisInstance();
    const expires = Math.floor(this.now().getTime() / 1000) + options.expiresInSeconds;
    const query = new URLSearchParams({
      expires: String(expires),
      filename: options.filename,
      signature: this.sign(key, expires, options.filename),
    });
    return `${this.publicBaseUrl}${LOCAL_BLOB_ROUTE}/${key}?${query.toString()}`;
  }

  /** The object for a signed request, or null when the signature is wrong or expired (indistinguishable). */
  async open(request: SignedBlobRequest): Promise<{ body: Buffer; meta: StoredObject } | null> {
    const expected = Buffer.from(this.sign(request.key, request.expires, request.filename));
    const given = Buffer.from(request.signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    if (request.expires < Math.floor(this.now().getTime() / 1000)) return null;
    try {
      const target = this.file(request.key);
      const [body, meta] = await Promise.all([readFile(target), readFile(`${target}.meta.json`, "utf8")]);
      return { body, meta: JSON.parse(meta) as StoredObject };
    } catch {
      return null;
    }
  }
}
