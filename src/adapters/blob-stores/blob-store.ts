/** Where generated documents (invoice and receipt PDFs) live, and how clients download them. */
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
  /**
   * Removes what writes begun before `startedBefore` left behind unfinished (a process killed
   * mid-write): temporary files, incomplete multipart uploads. Answers how many were removed.
   */
  removeAbandonedWrites(startedBefore: Date): Promise<number>;
}

/** Keys are path-like (`invoices/<org>/<order>.pdf`); nothing that could climb out of a folder. */
export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/.test(key) || key.includes("..")) {
    throw new Error(`unsafe storage key: ${key}`);
  }
}
