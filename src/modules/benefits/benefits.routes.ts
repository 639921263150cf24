import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf, type OrganizationScope } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Type } from "@sinclair/typebox";
import { IdParams } from "../../schema/primitives.ts";
import { PaginationQuery } from "../../schema/pagination.ts";
import { ListResourceBenefitDownloadableFile } from "../files/files.steps.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import type { BenefitGrantService } from "./benefit-grant-reads.service.ts";
import { BenefitGrantsOfBenefitQuery, ListResourceBenefitGrant } from "./benefit-grants.schemas.ts";
import { BenefitCreate, BenefitListQuery, BenefitUpdate } from "./benefit-inputs.schemas.ts";
import { Benefit, ListResourceBenefit } from "./benefits.schemas.ts";
import type { BenefitService } from "./benefits.service.ts";

/** The deletion flow, handed in by the composition root (features never import flows). */
export interface BenefitDeletion {
  delete: (id: string, allowed: OrganizationScope) => Promise<void>;
}

const READ = ["benefits:read", "benefits:write"];
const WRITE = ["benefits:write"];
const tags = ["benefits"];

/** Every `/v1/benefits/*` route. */
export const benefitRoutes =
  (benefits: BenefitService, deletion: BenefitDeletion, grants: BenefitGrantService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/benefits/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "benefits:list",
          tags,
          summary: "List Benefits",
          querystring: BenefitListQuery,
          response: responses({ 200: ListResourceBenefit }),
        },
      },
      async (request) => benefits.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/benefits/",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "benefits:create",
          tags,
          summary: "Create Benefit",
          body: BenefitCreate,
          response: responses({ 201: Benefit }),
        },
      },
      async (request, reply) => reply.code(201).send(await benefits.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/benefits/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "benefits:get",
          tags,
          summary: "Get Benefit",
          params: IdParams,
          response: responses({ 200: Benefit }, { notFound: true }),
        },
      },
      async (request) => benefits.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/benefits/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "benefits:update",
          tags,
          summary: "Update Benefit",
          description: "Changes the fields sent; new license key terms reach the keys already granted.",
          params: IdParams,
          body: BenefitUpdate,
          response: responses({ 200: Benefit }, { notFound: true }),
        },
      },
      async (request) => benefits.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/benefits/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "benefits:delete",
          tags,
          summary: "Delete Benefit",
          description: "Takes the benefit off its products and revokes every grant of it.",
          params: IdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await deletion.delete(request.params.id, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );

    app.get(
      "/v1/benefits/:id/grants",
      {
        // The grant's properties are an undiscriminated union of objects: serialized as built.
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "benefits:grants",
          tags,
          summary: "List Benefit Grants",
          description: "List the grants of a benefit, newest first.",
          params: IdParams,
          querystring: BenefitGrantsOfBenefitQuery,
          response: responses({ 200: ListResourceBenefitGrant }, { notFound: true }),
        },
      },
      async (request) => grants.ofBenefit(request.params.id, request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/benefits/:id/files",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "benefits:files",
          tags,
          summary: "List Benefit Files",
          description: "The active, uploaded files of a downloadables benefit, in its order, with their downloads.",
          params: IdParams,
          querystring: Type.Object(PaginationQuery),
          response: responses({ 200: ListResourceBenefitDownloadableFile }, { notFound: true }),
        },
      },
      async (request) => benefits.files(request.params.id, request.query, organizationScope(principalOf(request))),
    );
  };
