import type { BlobStore } from "../../adapters/blob-stores/blob-store.ts";
import type { Deps } from "../../context.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { findFile } from "./files.repository.ts";

/** How long the redirect of a public file's URL works; the public URL itself never expires. */
const PUBLIC_LINK_TTL_SECONDS = 600;

/** The public URLs of product medias and avatars, redirecting to their stored objects. */
export function createPublicFiles(deps: Deps, blobs: BlobStore) {
  return {
    async downloadUrl(id: string): Promise<string> {
      const row = await findFile(deps.db, id, null);
      if (!row || !row.is_uploaded || row.service === "downloadable") throw new ResourceNotFound();
      return blobs.downloadUrl(row.path, { filename: row.name, expiresInSeconds: PUBLIC_LINK_TTL_SECONDS });
    },
  };
}
export type PublicFiles = ReturnType<typeof createPublicFiles>;
