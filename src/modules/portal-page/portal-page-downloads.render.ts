import { escapeHtml as e } from "../../pages/html-page.ts";
import type { DownloadableRead } from "../files/files.schemas.ts";

/**
 * A file of the customer's benefits: its name links to the portal API's signed download, which works
 * for an hour (the page is read again on each visit, so its links are fresh); the size beside it.
 */
export const downloadItem = ({ id, file }: DownloadableRead): string =>
  `<li class="item"><h3 id="download-${e(id)}"><a href="${e(file.download.url)}">${e(file.name)}</a></h3><p class="muted">${e(
    file.size_readable,
  )}</p></li>`;
