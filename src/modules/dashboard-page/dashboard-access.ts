import type { FastifyInstance } from "fastify";
import type { Principal, TokenAuthenticator } from "../../http/auth.ts";

/** One request to the public API, made in-process with the session's token (`app.inject` of the root app). */
export interface ApiRequest {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Path and query, from `/v1/`. */
  url: string;
  token: string;
  body?: unknown;
}

export interface ApiAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Buffer;
}

export type ForwardToApi = (request: ApiRequest) => Promise<ApiAnswer>;

/** Forwards to this same app's public API in-process (no socket), with the session's token as the bearer. */
export function forwardInProcess(app: Pick<FastifyInstance, "inject">): ForwardToApi {
  return async ({ method, url, token, body }) => {
    const answer = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { statusCode: answer.statusCode, headers: answer.headers, rawPayload: answer.rawPayload };
  };
}

export interface DashboardOrganization {
  id: string;
  name: string;
  slug: string;
  /** The currency its metrics are in (its default presentment currency). */
  currency: string;
}

interface OrganizationItem {
  id: string;
  name: string;
  slug: string;
  default_presentment_currency: string;
}

/** What a page knows of who is signed in: the kind of token and the scopes it holds. */
export interface SignedInAs {
  kind: "user" | "organization";
  /** `"all"` for an owner's token without a scope list. */
  scopes: readonly string[] | "all";
  /** The one organization an organization token belongs to. */
  organizationId: string | null;
}

const MAX_TOKEN_LENGTH = 256;

/**
 * The dashboard's view of a token: the same authenticators as the API's bearer tokens (so an
 * expired or revoked token is refused here as there), accepting only the tokens that act on the
 * organization side, an owner's personal token or an organization token.
 */
export function createDashboardAccess(authenticators: ReadonlyMap<string, TokenAuthenticator>, forward: ForwardToApi) {
  async function principalOf(token: string): Promise<Principal | null> {
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const prefix = [...authenticators.keys()].find((p) => token.startsWith(p));
    return prefix ? await authenticators.get(prefix)!(token) : null;
  }

  return {
    async signedInAs(token: string): Promise<SignedInAs | null> {
      const principal = await principalOf(token);
      if (principal?.kind === "user")
        return { kind: "user", scopes: principal.scopes === "all" ? "all" : [...principal.scopes], organizationId: null };
      if (principal?.kind === "organization")
        return { kind: "organization", scopes: [...principal.scopes], organizationId: principal.organizationId };
      return null;
    },

    /**
     * The organizations the token sees, read through `GET /v1/organizations/`; an organization token
     * lacking `organizations:read` still sees its own, by id, without a name.
     */
    async organizations(token: string, as: SignedInAs): Promise<DashboardOrganization[]> {
      const answer = await forward({ method: "GET", url: "/v1/organizations/?limit=100&sorting=name", token });
      if (answer.statusCode === 200) {
        const list = JSON.parse(answer.rawPayload.toString("utf8")) as { items: OrganizationItem[] };
        return list.items.map(({ id, name, slug, default_presentment_currency }) => ({
          id,
          name,
          slug,
          currency: default_presentment_currency,
        }));
      }
      return as.organizationId ? [{ id: as.organizationId, name: "Your organization", slug: "", currency: "usd" }] : [];
    },
  };
}
export type DashboardAccess = ReturnType<typeof createDashboardAccess>;
