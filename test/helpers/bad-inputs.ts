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
      const body = response.json<{ error?: string; detail?: unknown }>();
      if (testCase.status === 422) {
        expect(body.error).toBe(testCase.error ?? "RequestValidationError");
        expect(Array.isArray(body.detail)).toBe(true);
        const detail = body.detail as { loc: unknown[]; msg: unknown; type: unknown }[];
        expect(detail.length).toBeGreaterThan(0);
        for (const entry of detail) {
          expect(Array.isArray(entry.loc)).toBe(true);
          expect(typeof entry.msg).toBe("string");
          expect(typeof entry.type).toBe("string");
        }
        if (testCase.loc) expect(detail.map((d) => d.loc)).toContainEqual(testCase.loc);
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
