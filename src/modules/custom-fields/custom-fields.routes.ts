import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import { CustomFieldCreate, CustomFieldListQuery, CustomFieldUpdate, ListResourceCustomField } from "./custom-field-inputs.schemas.ts";
import { CustomField } from "./custom-fields.schemas.ts";
import type { CustomFieldService } from "./custom-fields.service.ts";

const READ = ["custom_fields:read", "custom_fields:write"];
const WRITE = ["custom_fields:write"];
const tags = ["custom-fields"];
const CustomFieldIdParams = Type.Object({ id: Uuid4({ description: "The custom field ID." }) });

export const customFieldRoutes =
  (customFields: CustomFieldService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/custom-fields/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "custom-fields:list",
          tags,
          summary: "List Custom Fields",
          querystring: CustomFieldListQuery,
          response: responses({ 200: ListResourceCustomField }),
        },
      },
      async (request) => customFields.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/custom-fields/",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "custom-fields:create",
          tags,
          summary: "Create Custom Field",
          body: CustomFieldCreate,
          response: responses({ 201: CustomField }),
        },
      },
      async (request, reply) => reply.code(201).send(await customFields.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/custom-fields/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "custom-fields:get",
          tags,
          summary: "Get Custom Field",
          params: CustomFieldIdParams,
          response: responses({ 200: CustomField }, { notFound: true }),
        },
      },
      async (request) => customFields.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/custom-fields/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "custom-fields:update",
          tags,
          summary: "Update Custom Field",
          params: CustomFieldIdParams,
          body: CustomFieldUpdate,
          response: responses({ 200: CustomField }, { notFound: true }),
        },
      },
      async (request) => customFields.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/custom-fields/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "custom-fields:delete",
          tags,
          summary: "Delete Custom Field",
          params: CustomFieldIdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await customFields.delete(request.params.id, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );
  };
