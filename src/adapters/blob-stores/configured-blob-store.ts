import path from "node:path";
import type { Logger } from "pino";
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

/**
 * Older than any write still in flight. A `put` writes a document already rendered in memory and
 * renames it at once (milliseconds); an hour leaves room for a stalled disk or a paused process,
 * and a write that outlived it anyway fails on its rename and its job runs again.
 */
export const ABANDONED_WRITE_AGE_MS = 60 * 60_000;

/**
 * At start: removes what writes interrupted by a crash left in the store. Every process with a
 * store runs it, while others sharing the store may be writing. It never rejects, so a start
 * need not wait for it (listing a large folder takes a while): a failure (an S3 policy without
 * the rights, a server without the operation) is logged and the next start tries again.
 */
export async function sweepAbandonedWrites(blobs: BlobStore, now: () => Date, logger: Logger): Promise<void> {
  try {
    const removed = await blobs.removeAbandonedWrites(new Date(now().getTime() - ABANDONED_WRITE_AGE_MS));
    logger.info({ removed }, "removed what interrupted blob writes left");
  } catch (error) {
    logger.warn({ err: error }, "could not remove what interrupted blob writes left");
  }
}
