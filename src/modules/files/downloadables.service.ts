import type { BlobStore } from "../../adapters/blob-stores/blob-store.ts";
import type { Deps } from "../../context.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { asList, paginate, toPage, type Page } from "../../schema/pagination.ts";
import {
  DOWNLOAD_LINK_TTL_SECONDS,
  DownloadLinkExpired,
  downloadLinkPath,
  signDownloadToken,
  verifyDownloadToken,
  verifyEmailDownloadToken,
} from "./download-links.ts";
import type { DownloadableListQuery } from "./file-inputs.schemas.ts";
import { toFileDownload } from "./files.mapper.ts";
import { countCustomerDownloadables, countDownload, findDownloadableForUpdate, pageCustomerDownloadables } from "./files.repository.ts";
import type { DownloadableRead } from "./files.schemas.ts";

/** What the portal's customers download: their files, each behind an hour's signed link that counts downloads. */
export function createDownloadableService(deps: Deps, blobs: BlobStore) {
  /** Counts a download of the row and answers an hour's store link to its file, unless the file (or, checked, the grant) is gone. */
  const follow = (id: string, options: { grantChecked: boolean }): Promise<string> =>
    deps.db.transaction().execute(async (trx) => {
      const row = await findDownloadableForUpdate(trx, id);
      if (!row) throw new ResourceNotFound();
      const revoked = options.grantChecked && row.downloadable_status !== "granted";
      if (revoked || row.flagged_malicious_at !== null || row.deleted_at !== null || !row.is_uploaded) throw new DownloadLinkExpired();
      await countDownload(trx, id, deps.now());
      return blobs.downloadUrl(row.path, { filename: row.name, expiresInSeconds: DOWNLOAD_LINK_TTL_SECONDS });
    });

  return {
    /**
     * The customer's files, newest grant first; `null` for a member session, which sees only its
     * member's files, and no grant is made for a member yet: it sees none (the hosted service's rule).
     */
    async list(customerId: string | null, query: DownloadableListQuery): Promise<Page<DownloadableRead>> {
      if (customerId === null) return toPage([], 0, query);
      const benefitIds = asList(query.benefit_id);
      const now = deps.now();
      return paginate(
        query,
        () => countCustomerDownloadables(deps.db, customerId, benefitIds),
        async (offset, limit) =>
          (await pageCustomerDownloadables(deps.db, customerId, benefitIds, { offset, limit })).map((row) => {
            const { token, expiresAt } = signDownloadToken(deps.secret, row.downloadable_id, now);
            return {
              id: row.downloadable_id,
              benefit_id: row.benefit_id,
              file: toFileDownload(row, {
                url: `${deps.config.publicBaseUrl}${downloadLinkPath(token)}`,
                headers: {},
                expires_at: expiresAt.toISOString(),
              }),
            };
          }),
      );
    },

    /**
     * Follows a download link: counts the download and answers where the file is (a fresh hour's
     * link to the store). Like the hosted service's, the grant is not checked again: a link works
     * until it expires. A flagged file, or one deleted since, is gone.
     */
    async download(token: string): Promise<string> {
      const id = verifyDownloadToken(deps.secret, token, deps.now());
      if (id === null) throw new ResourceNotFound();
      return follow(id, { grantChecked: false });
    },

    /**
     * Follows an order email's link, which never expires: as `download`, but only while the
     * customer still holds the file (a revoked grant is gone).
     */
    async downloadFromEmail(token: string): Promise<string> {
      const id = verifyEmailDownloadToken(deps.secret, token);
      if (id === null) throw new ResourceNotFound();
      return follow(id, { grantChecked: true });
    },
  };
}
export type DownloadableService = ReturnType<typeof createDownloadableService>;
