import http from "node:http";
import https from "node:https";
import { MAX_LOGO_BYTES, logoFormat } from "../../documents/logo.ts";
import { guardedLookup, urlProblem, type UrlPolicy } from "../../http/outbound-url-policy.ts";

/** How long a logo's server gets, from connect to the last byte read. */
export const LOGO_FETCH_TIMEOUT_MS = 5000;

/**
 * A fetched logo, or why there is none. `retry` is set for what may pass on a later attempt (no
 * answer, a 5xx); a refused address, a non-image or an oversized body will not.
 * `reason` never carries the URL: it may hold credentials in its query.
 */
export type LogoFetch = { ok: true; content: Buffer } | { ok: false; reason: string; retry: boolean };

/**
 * One GET under the outgoing-request policy (the URL's text, then every address its host resolves
 * to), following no redirect, reading at most MAX_LOGO_BYTES: more is refused, not truncated. Only a
 * PNG or JPEG by its signature is kept, whatever the `Content-Type` says.
 */
export function fetchLogo(url: string, policy: UrlPolicy, timeoutMs = LOGO_FETCH_TIMEOUT_MS): Promise<LogoFetch> {
  const refused = urlProblem(url, policy);
  if (refused) return Promise.resolve({ ok: false, reason: `Refused: ${refused}`, retry: false });
  const target = new URL(url);
  const transport = target.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: LogoFetch) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(result);
    };
    const request = transport.request(target, {
      method: "GET",
      lookup: guardedLookup(policy),
      headers: { accept: "image/png, image/jpeg", "user-agent": "polar.sh logo fetch" },
    });
    const deadline = setTimeout(() => finish({ ok: false, reason: `Timed out after ${timeoutMs} ms`, retry: true }), timeoutMs);
    request.on("error", (error) => finish({ ok: false, reason: error.message, retry: true }));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        // A redirect is not followed: its target was never checked when the URL was set.
        finish({ ok: false, reason: `Answered ${status}`, retry: status >= 500 });
        return;
      }
      const chunks: Buffer[] = [];
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_LOGO_BYTES) finish({ ok: false, reason: `Larger than ${MAX_LOGO_BYTES} bytes`, retry: false });
        else chunks.push(chunk);
      });
      response.on("end", () => {
        const content = Buffer.concat(chunks);
        finish(logoFormat(content) ? { ok: true, content } : { ok: false, reason: "Not a PNG or JPEG image", retry: false });
      });
      response.on("error", (error) => finish({ ok: false, reason: error.message, retry: true }));
    });
    request.end();
  });
}
