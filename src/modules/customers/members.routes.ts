import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { ExternalIdParams } from "./customers.schemas.ts";
import {
  CustomerMemberParams,
  ExternalCustomerMemberParams,
  ListResourceMember,
  Member,
  MemberCreateFromCustomer,
  MemberListQuery,
  MemberUpdate,
} from "./members.schemas.ts";
import type { MemberService } from "./members.service.ts";

const READ = ["members:read", "members:write"];
const WRITE = ["members:write"];
const tags = ["customers", "members"];

/** `/v1/members/` and the member paths under `/v1/customers/{id}/members` and their external-id twins. */
export const memberRoutes =
  (members: MemberService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/members/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "members:list_members",
          tags: ["members"],
          summary: "List Members",
          querystring: MemberListQuery,
          response: responses({ 200: ListResourceMember }),
        },
      },
      async (request) => members.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/customers/:id/members",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:members:create",
          tags,
          summary: "Create Member",
          params: IdParams,
          body: MemberCreateFromCustomer,
          response: responses({ 201: Member }, { notFound: true }),
        },
      },
      async (request, reply) =>
        reply.code(201).send(await members.create({ id: request.params.id }, request.body, organizationScope(principalOf(request)))),
    );

    app.post(
      "/v1/customers/external/:external_id/members",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:members:create_external",
          tags,
          summary: "Create Member by Customer External ID",
          params: ExternalIdParams,
          body: MemberCreateFromCustomer,
          response: responses({ 201: Member }, { notFound: true }),
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(await members.create({ externalId: request.params.external_id }, request.body, organizationScope(principalOf(request)))),
    );

    app.get(
      "/v1/customers/:id/members/:member_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:members:get",
          tags,
          summary: "Get Member",
          params: CustomerMemberParams,
          response: responses({ 200: Member }, { notFound: true }),
        },
      },
      async (request) =>
        members.get({ customerId: request.params.id, memberId: request.params.member_id }, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/customers/:id/members/:member_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:members:update",
          tags,
          summary: "Update Member",
          params: CustomerMemberParams,
          body: MemberUpdate,
          response: responses({ 200: Member }, { notFound: true }),
        },
      },
      async (request) =>
        members.update(
          { customerId: request.params.id, memberId: request.params.member_id },
          request.body,
          organizationScope(principalOf(request)),
        ),
    );

    app.delete(
      "/v1/customers/:id/members/:member_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:members:delete",
          tags,
          summary: "Delete Member",
          params: CustomerMemberParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await members.remove(
          { customerId: request.params.id, memberId: request.params.member_id },
          organizationScope(principalOf(request)),
        );
        return reply.code(204).send();
      },
    );

    const external = (params: { external_id: string; member_external_id: string }) => ({
      externalCustomerId: params.external_id,
      memberExternalId: params.member_external_id,
    });

    app.get(
      "/v1/customers/external/:external_id/members/:member_external_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:members:get_external",
          tags,
          summary: "Get Member by External ID",
          params: ExternalCustomerMemberParams,
          response: responses({ 200: Member }, { notFound: true }),
        },
      },
      async (request) => members.get(external(request.params), organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/customers/external/:external_id/members/:member_external_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:members:update_external",
          tags,
          summary: "Update Member by External ID",
          params: ExternalCustomerMemberParams,
          body: MemberUpdate,
          response: responses({ 200: Member }, { notFound: true }),
        },
      },
      async (request) => members.update(external(request.params), request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/customers/external/:external_id/members/:member_external_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:members:delete_external",
          tags,
          summary: "Delete Member by External ID",
          params: ExternalCustomerMemberParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await members.remove(external(request.params), organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );
  };
