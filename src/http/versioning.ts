import type { FastifyInstance } from "fastify";

/** The interface versions this server answers; no route or field differs between them today. */
export const API_VERSIONS = ["2026-04", "2026-10"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const DEFAULT_API_VERSION: ApiVersion = "2026-04";
export const API_VERSION_HEADER = "Polar-Version";

const VERSION_FORMAT = /^\d{4}-\d{2}$/;

const isApiVersion = (value: string): value is ApiVersion => (API_VERSIONS as readonly string[]).includes(value);

/** The version a request asks for: the default when it names none, null when it names a malformed or unknown one. */
export function resolveApiVersion(header: string | string[] | undefined): ApiVersion | null {
  if (header === undefined || header === "") return DEFAULT_API_VERSION;
  if (typeof header !== "string" || !VERSION_FORMAT.test(header)) return null;
  return isApiVersion(header) ? header : null;
}

/**
 * As the hosted service: the whole app answers a bad `Polar-Version` with a bare 404, before anything else
 * looks at the request (register this first); every other response echoes the resolved version.
 */
export function registerApiVersioning(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    const version = resolveApiVersion(request.headers[API_VERSION_HEADER.toLowerCase()]);
    if (version === null)
      return reply
        .code(404)
        .type("application/json")
        .send(JSON.stringify({ detail: "Not Found" }));
    reply.header(API_VERSION_HEADER, version);
  });
}
