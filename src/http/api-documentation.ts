import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { documentIdempotencyKey } from "./idempotency.ts";
import { markDeepObjectParameters } from "./query-string.ts";
import { API_VERSIONS, API_VERSION_HEADER, DEFAULT_API_VERSION } from "./versioning.ts";

/** The document's `info`; `x-api-versions` (an OpenAPI extension, absent from the plugin's type) lists the versions served. */
const DOCUMENT_INFO = {
  title: "commerce-api",
  version: DEFAULT_API_VERSION,
  description: `Payments and billing API (2026-04 interface). The \`${API_VERSION_HEADER}\` header chooses the version: ${API_VERSIONS.join(" or ")}; none or an empty value means ${DEFAULT_API_VERSION}, any other value answers 404. Every other response names its version in that header.`,
  "x-api-versions": { header: API_VERSION_HEADER, supported: [...API_VERSIONS], default: DEFAULT_API_VERSION },
};

/** The OpenAPI document of every route registered after it, its UI at /docs, and its addresses. */
export async function registerDocumentation(
  app: FastifyInstance,
  publicBaseUrl: string,
  tags: { name: string; description: string }[],
): Promise<void> {
  await app.register(swagger, {
    transformObject: (document) =>
      "openapiObject" in document ? documentIdempotencyKey(markDeepObjectParameters(document.openapiObject)) : document.swaggerObject,
    openapi: {
      openapi: "3.1.0",
      info: DOCUMENT_INFO,
      servers: [{ url: publicBaseUrl }],
      tags,
      components: {
        securitySchemes: {
          pat: { type: "http", scheme: "bearer", description: "The instance owner's personal access token." },
          oat: { type: "http", scheme: "bearer", description: "Organization access token." },
          customer_session: { type: "http", scheme: "bearer", description: "Customer session token." },
          member_session: { type: "http", scheme: "bearer", description: "Member session token." },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  // As the hosted service, each version's document at /{version}/openapi.json (one document: they do not differ).
  for (const version of API_VERSIONS) app.get(`/${version}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
