import path from "node:path";
import type { Deps } from "../../context.ts";
import type { BlobStore } from "./blob-store.ts";
import { LocalBlobStore } from "./local-blob-store.ts";
import { S3BlobStore } from "./s3-blob-store.ts";

/** The configured store: local disk under DATA_DIR (default) or S3. */
export function createBlobStore(deps: Pick<Deps, "config" | "secret" | "now">): BlobStore {
  const storage = deps.config.storage;
  if (storage.driver === "s3") return new S3BlobStore(storage);
  return new LocalBlobStore(path.join(deps.config.dataDir, "blobs"), deps.config.publicBaseUrl, deps.secret, deps.now);
}
