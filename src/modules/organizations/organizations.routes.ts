import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { OrganizationResponse } from "./organizations.schemas.ts";
import {
  ListResourceOrganization,
  OrganizationCreateBody,
  OrganizationListQuery,
  OrganizationUpdateBody,
} from "./organization-inputs.schemas.ts";
import { ErrorBody } from "../../http/errors.ts";
import { OrganizationLegalDetails, OrganizationLegalDetailsUpdate } from "./organization-legal-details.schemas.ts";
import {
  ListResourceOrganizationAccessToken,
  OrganizationAccessTokenCreate,
  OrganizationAccessTokenCreateResponse,
  OrganizationAccessTokenListQuery,
} from "./access-tokens.schemas.ts";
import type { OrganizationService } from "./organizations.service.ts";
import type { AccessTokenService } from "./access-tokens.service.ts";

export const organizationRoutes =
  (organizations: OrganizationService, tokens: AccessTokenService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/organizations/",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["organizations:read", "organizations:write"]),
        schema: {
          operationId: "organizations:list",
          tags: ["organizations"],
          summary: "List Organizations",
          querystring: OrganizationListQuery,
          response: responses({ 200: ListResourceOrganization }),
        },
      },
      async (request) => organizations.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/organizations/",
      {
        config: requireAuth(["user"], ["organizations:write"]),
        schema: {
          operationId: "organizations:create",
          tags: ["organizations"],
          summary: "Create Organization",
          body: OrganizationCreateBody,
          response: responses({ 201: OrganizationResponse }),
        },
      },
      async (request, reply) => reply.code(201).send(await organizations.create(request.body)),
    );

    app.get(
      "/v1/organizations/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["organizations:read", "organizations:write"]),
        schema: {
          operationId: "organizations:get",
          tags: ["organizations"],
          summary: "Get Organization",
          params: IdParams,
          response: responses({ 200: OrganizationResponse }, { notFound: true }),
        },
      },
      async (request) => organizations.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/organizations/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["organizations:write"]),
        schema: {
          operationId: "organizations:update",
          tags: ["organizations"],
          summary: "Update Organization",
          description:
            "Only the keys sent apply. Extensions of this service: `customer_email_settings` and `notification_settings` (the seller's own notices) may name only the switches they change, and `email_sender` sets the sender of the organization's emails.",
          params: IdParams,
          body: OrganizationUpdateBody,
          response: responses({ 200: OrganizationResponse, 409: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => organizations.update(request.params.id, organizationScope(principalOf(request)), request.body),
    );

    app.get(
      "/v1/organizations/:id/legal-details",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["organizations:read", "organizations:write"]),
        schema: {
          operationId: "organizations:get_legal_details",
          tags: ["organizations"],
          summary: "Get Organization Legal Details",
          description: "An extension of this service: what the organization's invoices and receipts print about the seller.",
          params: IdParams,
          response: responses({ 200: OrganizationLegalDetails }, { notFound: true }),
        },
      },
      async (request) => organizations.legalDetails(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/organizations/:id/legal-details",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["organizations:write"]),
        schema: {
          operationId: "organizations:update_legal_details",
          tags: ["organizations"],
          summary: "Update Organization Legal Details",
          description:
            "An extension of this service: the registered name, address and tax registrations printed on documents rendered from now on (a generated invoice never changes).",
          params: IdParams,
          body: OrganizationLegalDetailsUpdate,
          response: responses({ 200: OrganizationLegalDetails }, { notFound: true }),
        },
      },
      async (request) => organizations.updateLegalDetails(request.params.id, organizationScope(principalOf(request)), request.body),
    );

    app.post(
      "/v1/organization-access-tokens/",
      {
        config: requireAuth(["user"], ["organization_access_tokens:write"]),
        schema: {
          operationId: "organization_access_tokens:create",
          tags: ["organization_access_tokens"],
          summary: "Create Organization Access Token",
          body: OrganizationAccessTokenCreate,
          response: responses({ 201: OrganizationAccessTokenCreateResponse }, { notFound: true }),
        },
      },
      async (request, reply) => reply.code(201).send(await tokens.createOrganizationToken(request.body)),
    );

    // Extensions (the reference serves no token listing or revocation): the owner manages an
    // organization's tokens, as only the owner creates them.
    app.get(
      "/v1/organization-access-tokens/",
      {
        config: requireAuth(["user"], ["organization_access_tokens:read", "organization_access_tokens:write"]),
        schema: {
          operationId: "organization_access_tokens:list",
          tags: ["organization_access_tokens"],
          summary: "List Organization Access Tokens",
          querystring: OrganizationAccessTokenListQuery,
          response: responses({ 200: ListResourceOrganizationAccessToken }, { notFound: true }),
        },
      },
      async (request) => tokens.listOrganizationTokens(request.query),
    );

    app.delete(
      "/v1/organization-access-tokens/:id",
      {
        config: requireAuth(["user"], ["organization_access_tokens:write"]),
        schema: {
          operationId: "organization_access_tokens:delete",
          tags: ["organization_access_tokens"],
          summary: "Revoke Organization Access Token",
          params: IdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await tokens.revokeOrganizationToken(request.params.id);
        return reply.code(204).send();
      },
    );
  };
