import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import type { Config } from "../../config.ts";
import { principalOf } from "../../http/auth.ts";
import { rateLimitHook } from "../../http/rate-limit.ts";
import { NoContent, PORTAL_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { LICENSE_FILE_TAG, licenseKeyActions, type LicenseFileService } from "../license-keys/license-keys.steps.ts";
import { LicenseFile, LicenseFileRequest } from "../license-keys/license-files.schemas.ts";
import { ErrorBody } from "../../http/errors.ts";
import {
  LicenseKeyDeactivate,
  LicenseKeyWithActivations,
  ListResourceLicenseKeyRead,
  PortalLicenseKeyListQuery,
} from "../license-keys/license-keys.schemas.ts";
import type { LicenseKeyService } from "../license-keys/license-keys.steps.ts";
import { portalCustomerOf } from "./portal-session.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const tags = ["customer_portal"];

/**
 * Counted per organization and key value whether or not the key exists, so the limiter does not
 * reveal which keys are real.
 */
const keyBucket = (request: FastifyRequest): string => {
  const body = request.body as { organization_id: string; key: string };
  return `${body.organization_id}:${body.key}`;
};

export const portalLicenseKeyRoutes =
  (service: LicenseKeyService, licenseFiles: LicenseFileService, config: Config): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/license-keys/",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:license_keys:list",
          tags,
          summary: "List License Keys",
          querystring: PortalLicenseKeyListQuery,
          response: responses({ 200: ListResourceLicenseKeyRead }),
        },
      },
      async (request) => service.listForCustomer(request.query, portalCustomerOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/license-keys/:id",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:license_keys:get",
          tags,
          summary: "Get License Key",
          params: IdParams,
          response: responses({ 200: LicenseKeyWithActivations }, { notFound: true }),
        },
      },
      async (request) => service.getForCustomer(request.params.id, portalCustomerOf(principalOf(request))),
    );

    const limits = config.licenseKeyRateLimit;
    const preHandler = rateLimitHook(app, [
      { name: "license-key-address", max: limits.perAddress, windowMs: limits.windowMs, key: (request) => request.ip },
      { name: "license-key-key", max: limits.perKey, windowMs: limits.windowMs, key: keyBucket },
    ]);
    await app.register(
      licenseKeyActions(service, {
        paths: {
          activate: "/v1/customer-portal/license-keys/activate",
          validate: "/v1/customer-portal/license-keys/validate",
          deactivate: "/v1/customer-portal/license-keys/deactivate",
        },
        operations: "customer_portal:license_keys",
        tags,
        preHandler,
      }),
    );

    app.post(
      "/v1/customer-portal/license-keys/license-file",
      {
        preHandler,
        schema: {
          operationId: "customer_portal:license_keys:license_file",
          tags: [LICENSE_FILE_TAG],
          summary: "Get License File",
          description:
            "An extension of this service, without credential and rate limited as activation: a signed license file for a live " +
            "activation of the key, to verify offline against the organization's JWKS. A revoked, disabled or expired key, or an " +
            "activation of another key, answers 404 as a validation does.",
          body: LicenseFileRequest,
          response: { ...responses({ 200: LicenseFile }, { auth: false, notFound: true }), 429: ErrorBody },
        },
      },
      async (request) => licenseFiles.issueByValue(request.body),
    );

    app.post(
      "/v1/customer-portal/license-keys/heartbeat",
      {
        preHandler,
        schema: {
          operationId: "customer_portal:license_keys:heartbeat",
          tags: [LICENSE_FILE_TAG],
          summary: "Send Activation Heartbeat",
          description:
            "An extension of this service, without credential and rate limited as activation: records that a live activation is " +
            "in use. Where the key's benefit sets a heartbeat interval, an activation silent for longer than interval plus grace " +
            "is deactivated, freeing its slot. A revoked, disabled or expired key, or an activation deactivated (culled " +
            "included) or of another key, answers 404 as a validation does.",
          body: LicenseKeyDeactivate,
          response: { ...responses({ 204: NoContent }, { auth: false, notFound: true }), 429: ErrorBody },
        },
      },
      async (request, reply) => {
        await service.heartbeat(request.body);
        return reply.code(204).send();
      },
    );
  };
