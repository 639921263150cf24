import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { expect, it } from "vitest";

export interface BadInputCase {
  name: string;
  request: () => InjectOptions & { token?: string | null };
  status: number;
  /** The `error` of the body; 422 cases default to RequestValidationError. */
  error?: string;
  /** For 422: a `loc` that one entry of `detail` must have. */
  loc?: (string | number)[];
}

interface ValidationEntry {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export interface ErrorBody {
  /** Absent only from the router's bare 404. */
  error?: string;
  detail?: string | ValidationEntry[];
  error_description?: string;
}

/** The bearer-token refusals (RFC 6750) carry `error_description` instead of `detail`. */
const OAUTH_ERRORS = new Set(["invalid_token", "insufficient_scope"]);

/**
 * Asserts the documented shape of an error answer and returns it: `{error, detail}` with a message
 * (or the router's bare `{detail: "Not Found"}`),
 * the RFC 6750 `{error, error_description}` of token refusals, or for a request validation error
 * a non-empty list of `{loc, msg, type, input?, ctx?}` entries.
 */
export function expectErrorBody(status: number, json: unknown): ErrorBody {
  const body = json as ErrorBody;
  // The router's answer to a path no route serves, as the reference answers it.
  if (status === 404 && body.error === undefined) {
    expect(body).toEqual({ detail: "Not Found" });
    return body;
  }
  expect(typeof body.error, `error of ${JSON.stringify(json).slice(0, 500)}`).toBe("string");
  if (OAUTH_ERRORS.has(body.error!)) {
    expect([401, 403]).toContain(status);
    expect(Object.keys(body).sort()).toEqual(["error", "error_description"]);
    expect(typeof body.error_description).toBe("string");
  } else if (body.error === "RequestValidationError") {
    expect(status).toBe(422);
    expect(Object.keys(body).sort()).toEqual(["detail", "error"]);
    const detail = body.detail as ValidationEntry[];
    expect(Array.isArray(detail)).toBe(true);
    expect(detail.length).toBeGreaterThan(0);
    for (const entry of detail) {
      expect(Array.isArray(entry.loc)).toBe(true);
      expect(typeof entry.msg).toBe("string");
      expect(typeof entry.type).toBe("string");
      expect(Object.keys(entry).filter((key) => !["loc", "msg", "type", "input", "ctx"].includes(key))).toEqual([]);
      if (entry.ctx !== undefined) expect(typeof entry.ctx).toBe("object");
    }
  } else {
    expect(Object.keys(body).sort()).toEqual(["detail", "error"]);
    expect(typeof body.detail).toBe("string");
  }
  return body;
}

type Send = (options: InjectOptions & { token?: string | null }) => Promise<LightMyRequestResponse>;

/**
 * One test per bad input: the documented status and body shape, never a 5xx, and (through
 * `unchanged`) proof that nothing was written.
 */
export function badInputTable(send: () => Send, cases: BadInputCase[], unchanged?: () => Promise<void>): void {
  for (const testCase of cases) {
    it(`answers ${testCase.status} for ${testCase.name}`, async () => {
      const response = await send()(testCase.request());
      expect(response.statusCode, response.body).toBe(testCase.status);
      const body = expectErrorBody(response.statusCode, response.json());
      if (testCase.status === 422) {
        expect(body.error).toBe(testCase.error ?? "RequestValidationError");
        if (testCase.loc) expect((body.detail as ValidationEntry[]).map((d) => d.loc)).toContainEqual(testCase.loc);
      } else if (testCase.error) {
        expect(body.error).toBe(testCase.error);
      }
      if (unchanged) await unchanged();
    });
  }
}

/** Who sends a bad-input case's request; read when the case runs, after the `beforeAll` that made the tokens. */
export type TokenSource = () => string | null;

/** A request builder for one route's cases: the payload and who sends it, with the route's usual sender by default. */
export const jsonRequest =
  (method: "POST" | "PATCH", url: string, usual: TokenSource) =>
  (payload: unknown, as: TokenSource = usual): BadInputCase["request"] =>
  () => ({ method, url, token: as(), payload: payload as object });

/** A GET of `path` with a query string appended, as a case's request. */
export const getRequest =
  (path: string, usual: TokenSource) =>
  (query = "", as: TokenSource = usual): BadInputCase["request"] =>
  () => ({ method: "GET", url: `${path}${query}`, token: as() });

/**
 * The refusals every authenticated organization route shares: no token, a malformed one, and each
 * token that lacks the route's scope (a read-only token on a write, a token of other features).
 */
export function tokenRefusals(
  request: (as: TokenSource) => BadInputCase["request"],
  lackingScope: Record<string, TokenSource>,
): BadInputCase[] {
  return [
    { name: "no token", request: request(() => null), status: 401, error: "Unauthorized" },
    { name: "a malformed token", request: request(() => "polar_oat_nope"), status: 401, error: "invalid_token" },
    ...Object.entries(lackingScope).map(([name, token]) => ({ name, request: request(token), status: 403, error: "insufficient_scope" })),
  ];
}

/** A create's `organization_id` refusals for an organization token: an organization not its own, and no UUID. */
export function organizationIdRefusals(
  post: (payload: unknown) => BadInputCase["request"],
  valid: Record<string, unknown>,
): BadInputCase[] {
  return [
    { name: "another organization's id", organization_id: "3f2b1c4d-1111-4222-8333-123456789abc" },
    { name: "a non-UUID organization", organization_id: "org" },
  ].map(({ name, organization_id }) => ({
    name,
    request: post({ ...valid, organization_id }),
    status: 422,
    loc: ["body", "organization_id"],
  }));
}

/** The page and limit refusals every paginated list shares. */
export function paginationRefusals(get: (query: string) => BadInputCase["request"]): BadInputCase[] {
  return [
    { name: "page 0", request: get("?page=0"), status: 422, loc: ["query", "page"] },
    { name: "a limit as text", request: get("?limit=ten"), status: 422, loc: ["query", "limit"] },
  ];
}
