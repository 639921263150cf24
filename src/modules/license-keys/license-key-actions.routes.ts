import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { onRequestHookHandler, preHandlerAsyncHookHandler } from "fastify";
import type { TSchema } from "@sinclair/typebox";
import { organizationScope, principalOf, type OrganizationScope, type RouteAuth } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { responses, NoContent } from "../../http/route-auth.ts";
import {
  LicenseKeyActivate,
  LicenseKeyActivationRead,
  LicenseKeyDeactivate,
  LicenseKeyValidate,
  ValidatedLicenseKey,
} from "./license-keys.schemas.ts";
import type { LicenseKeyService } from "./license-keys.service.ts";

export interface KeyActionsOptions {
  /** Each action's full path, written out by the route file that registers them. */
  paths: { activate: string; validate: string; deactivate: string };
  /** The operationId namespace: `license_keys` or `customer_portal:license_keys`. */
  operations: string;
  tags: string[];
  /** Server side: the token and scope; absent on the public portal variants. */
  auth?: RouteAuth;
  preHandler?: preHandlerAsyncHookHandler;
}

// With a token, 403 may also be a missing scope: `responses` documents that broader body.
const errors = { 400: ErrorBody, 404: ErrorBody };

/**
 * activate, validate and deactivate by key value, served twice: the server variants act within the
 * token's organizations, the public portal ones within the organization the body names.
 */
export const licenseKeyActions =
  (service: LicenseKeyService, options: KeyActionsOptions): FastifyPluginAsyncTypebox =>
  async (app) => {
    const { paths, operations, tags, auth, preHandler } = options;
    const config = auth ? { auth } : {};
    const scopeOf = (request: Parameters<onRequestHookHandler>[0]): OrganizationScope =>
      auth ? organizationScope(principalOf(request)) : null;
    const hooks = preHandler ? { preHandler } : {};
    const answers = <S extends Record<number, TSchema>>(success: S) => ({
      ...(auth ? {} : { 403: ErrorBody, 429: ErrorBody }),
      ...responses(success, { auth: auth !== undefined }),
      ...errors,
    });

    const routeOptions = <B extends TSchema, S extends Record<number, TSchema>>(action: string, summary: string, body: B, success: S) => ({
      config,
      ...hooks,
      schema: { operationId: `${operations}:${action}`, tags, summary, body, response: answers(success) },
    });

    app.post(
      paths.activate,
      routeOptions("activate", "Activate License Key", LicenseKeyActivate, { 200: LicenseKeyActivationRead }),
      async (request) => service.activate(request.body, scopeOf(request)),
    );

    app.post(
      paths.validate,
      routeOptions("validate", "Validate License Key", LicenseKeyValidate, { 200: ValidatedLicenseKey }),
      async (request) => service.validate(request.body, scopeOf(request)),
    );

    app.post(
      paths.deactivate,
      routeOptions("deactivate", "Deactivate License Key", LicenseKeyDeactivate, { 204: NoContent }),
      async (request, reply) => {
        await service.deactivate(request.body, scopeOf(request));
        return reply.code(204).send();
      },
    );
  };
