import type { Task } from "graphile-worker";
import type { Deps } from "../../context.ts";
import { urlPolicyOf } from "../../http/outbound-url-policy.ts";
import { realTime } from "../../values/clock.ts";
import { fetchLogo } from "./organization-logos.fetch.ts";
import { saveLogoIfCurrent } from "./organization-logos.repository.ts";

export interface LogoFetchPayload {
  organizationId: string;
  url: string;
}

const isLogoFetchPayload = (payload: unknown): payload is LogoFetchPayload =>
  typeof payload === "object" &&
  payload !== null &&
  typeof (payload as Record<string, unknown>).organizationId === "string" &&
  typeof (payload as Record<string, unknown>).url === "string";

/**
 * Fetches the avatar URL set on an organization and stores its logo. A failure stores nothing and
 * is logged with the host only (the URL's path or query may carry a token); one that may pass later
 * throws, so graphile-worker retries it within the job's few attempts.
 */
export const fetchLogoTask =
  (deps: Deps): Task =>
  async (payload, helpers) => {
    if (!isLogoFetchPayload(payload)) throw new Error("organizations.logo_fetch: malformed payload");
    const fetched = await fetchLogo(payload.url, urlPolicyOf(deps.config));
    if (fetched.ok) {
      await saveLogoIfCurrent(deps.db, {
        organization_id: payload.organizationId,
        source_url: payload.url,
        content: fetched.content,
        fetched_at: realTime(deps.now),
      });
      return;
    }
    helpers.logger.warn(
      `no logo stored for organization ${payload.organizationId} from ${URL.canParse(payload.url) ? new URL(payload.url).host : "an invalid URL"}: ${fetched.reason}`,
    );
    if (fetched.retry) throw new Error(`logo fetch failed: ${fetched.reason}`);
  };
