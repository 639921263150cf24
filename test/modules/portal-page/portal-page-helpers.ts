import { expect } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganizationToken } from "../../helpers/factories.ts";

/** A customer session's portal link, as `POST /v1/customer-sessions/` answers it. */
export interface PortalLink {
  /** The whole `customer_portal_url`. */
  url: string;
  /** Its path and query, for `app.inject`. */
  path: string;
  token: string;
}

export async function openPortalSession(
  ctx: TestContext,
  organizationId: string,
  customerId: string,
  extra: { return_url?: string } = {},
): Promise<PortalLink> {
  const token = await createOrganizationToken(ctx.deps, organizationId, ["customer_sessions:write"]);
  const response = await ctx.request({
    method: "POST",
    url: "/v1/customer-sessions/",
    token,
    payload: { customer_id: customerId, ...extra },
  });
  expect(response.statusCode, response.body).toBe(201);
  const session = response.json<{ token: string; customer_portal_url: string }>();
  const url = new URL(session.customer_portal_url);
  return { url: session.customer_portal_url, path: `${url.pathname}${url.search}`, token: session.token };
}

/** Opens the portal with a session's link as a browser does: the cookie it sets, to send with every later page. */
export async function signInToPortal(ctx: TestContext, portal: PortalLink): Promise<string> {
  const response = await ctx.request({ method: "GET", url: portal.path });
  expect(response.statusCode).toBe(303);
  return String(response.headers["set-cookie"]).split(";")[0]!;
}

/** A live activation of a license key; its id. */
export async function addActivation(ctx: TestContext, organizationId: string, licenseKeyId: string, label: string): Promise<string> {
  const row = await ctx.deps.db
    .insertInto("license_key_activations")
    .values({
      organization_id: organizationId,
      license_key_id: licenseKeyId,
      label,
      conditions: "{}",
      meta: "{}",
      modified_at: null,
      deleted_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}
