import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf, type OrganizationScope } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Type } from "@sinclair/typebox";
import { IdField, IdParams, Uuid4 } from "../../schema/primitives.ts";
import { licenseKeyActions } from "./license-key-actions.routes.ts";
import {
  LicenseKeyActivationRead,
  LicenseKeyListQuery,
  LicenseKeyRead,
  LicenseKeyUpdate,
  LicenseKeyWithActivations,
  ListResourceLicenseKeyRead,
} from "./license-keys.schemas.ts";
import type { LicenseKeyService } from "./license-keys.service.ts";

/** The update flow, handed in by the composition root (features never import flows). */
export interface LicenseKeyUpdating {
  update: (id: string, input: LicenseKeyUpdate, allowed: OrganizationScope) => Promise<LicenseKeyRead>;
}

const READ = ["license_keys:read", "license_keys:write"];
const WRITE = ["license_keys:write"];
const tags = ["license_keys"];

const ActivationParams = Type.Object({ ...IdField, activation_id: Uuid4({ description: "The license key activation ID." }) });

export const licenseKeyRoutes =
  (service: LicenseKeyService, updating: LicenseKeyUpdating): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/license-keys/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "license_keys:list",
          tags,
          summary: "List License Keys",
          querystring: LicenseKeyListQuery,
          response: responses({ 200: ListResourceLicenseKeyRead }),
        },
      },
      async (request) => service.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/license-keys/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "license_keys:get",
          tags,
          summary: "Get License Key",
          params: IdParams,
          response: responses({ 200: LicenseKeyWithActivations }, { notFound: true }),
        },
      },
      async (request) => service.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/license-keys/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "license_keys:update",
          tags,
          summary: "Update License Key",
          description: "Changes the fields sent; a revoked key revokes its benefit grant, a key granted again restores it.",
          params: IdParams,
          body: LicenseKeyUpdate,
          response: responses({ 200: LicenseKeyRead }, { notFound: true }),
        },
      },
      async (request) => updating.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/license-keys/:id/activations/:activation_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "license_keys:get_activation",
          tags,
          summary: "Get Activation",
          params: ActivationParams,
          response: responses({ 200: LicenseKeyActivationRead }, { notFound: true }),
        },
      },
      async (request) =>
        service.getActivation(
          { id: request.params.id, activationId: request.params.activation_id },
          organizationScope(principalOf(request)),
        ),
    );

    await app.register(
      licenseKeyActions(service, {
        paths: { activate: "/v1/license-keys/activate", validate: "/v1/license-keys/validate", deactivate: "/v1/license-keys/deactivate" },
        operations: "license_keys",
        tags,
        auth: requireAuth(ORGANIZATION_SIDE, WRITE).auth,
      }),
    );
  };
