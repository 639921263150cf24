import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { LicenseFile, LicenseFileQuery, LicenseSigningJwks } from "./license-files.schemas.ts";
import type { LicenseFileService } from "./license-files.service.ts";

/** Shown in /docs: these operations are this service's, not the reference's. */
export const LICENSE_FILE_TAG = "license_files";
export const LICENSE_FILE_TAG_DESCRIPTION =
  "An extension of this service (not in the 2026-04 reference): license files signed with the organization's Ed25519 key " +
  "(a compact JWS, `alg: EdDSA`, in a `COMMERCE LICENSE` armor) that a desktop app verifies offline against the JWKS, " +
  "and activation heartbeats that free the slots of machines gone silent.";
const tags = [LICENSE_FILE_TAG];

export const licenseFileRoutes =
  (service: LicenseFileService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/organizations/:id/license-keys/jwks",
      {
        schema: {
          operationId: "license_keys:jwks",
          tags,
          summary: "Get License Signing Keys",
          description:
            "An extension of this service, without credential: the public keys (JWKS) that verify the organization's license files. " +
            "A rotated key stays listed while a file it signed is not due for a refresh.",
          params: IdParams,
          response: responses({ 200: LicenseSigningJwks }, { auth: false, notFound: true }),
        },
      },
      async (request) => service.jwks(request.params.id),
    );

    app.post(
      "/v1/organizations/:id/license-keys/rotate-signing-key",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["license_keys:write"]),
        schema: {
          operationId: "license_keys:rotate_signing_key",
          tags,
          summary: "Rotate License Signing Key",
          description:
            "An extension of this service: new license files are signed with a new key; the previous key stays in the JWKS until " +
            "the last file it signed is due for a refresh. Answers the JWKS after the rotation.",
          params: IdParams,
          response: responses({ 200: LicenseSigningJwks }, { notFound: true }),
        },
      },
      async (request) => service.rotate(request.params.id, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/license-keys/:id/license-file",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["license_keys:read", "license_keys:write"]),
        schema: {
          operationId: "license_keys:license_file",
          tags,
          summary: "Get License File",
          description:
            "An extension of this service: a signed license file for a live activation of the key. A revoked, disabled or expired " +
            "key, or an activation of another key, answers 404 as a validation does.",
          params: IdParams,
          querystring: LicenseFileQuery,
          response: responses({ 200: LicenseFile }, { notFound: true }),
        },
      },
      async (request) => service.issueById(request.params.id, request.query.activation_id, organizationScope(principalOf(request))),
    );
  };
