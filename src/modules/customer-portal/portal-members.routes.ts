import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf, type RouteAuth } from "../../http/auth.ts";
import { BILLING_ROLES, NoContent, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import {
  CustomerPortalMember,
  CustomerPortalMemberCreate,
  CustomerPortalMemberListQuery,
  CustomerPortalMemberUpdate,
  ListResourceCustomerPortalMember,
} from "./portal-members.schemas.ts";
import type { PortalMemberService } from "./portal-members.service.ts";
import { portalMemberOf } from "./portal-session.ts";

const tags = ["customer_portal", "members"];

/**
 * Team management: member sessions only (a customer session is a 401, as in the hosted service), of
 * owners and billing managers (another role is a 403), each route with the write scope.
 */
const TEAM_MANAGERS: { auth: RouteAuth } = {
  auth: {
    kinds: ["member"],
    scopes: ["customer_portal:write"],
    memberRoles: { allowed: BILLING_ROLES, refusal: "Insufficient role for this operation" },
  },
};

export const portalMemberRoutes =
  (members: PortalMemberService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/members",
      {
        config: TEAM_MANAGERS,
        schema: {
          operationId: "customer_portal:members:list_members",
          tags,
          summary: "List Members",
          querystring: CustomerPortalMemberListQuery,
          response: responses({ 200: ListResourceCustomerPortalMember }),
        },
      },
      async (request) => members.list(portalMemberOf(principalOf(request)), request.query),
    );

    app.post(
      "/v1/customer-portal/members",
      {
        config: TEAM_MANAGERS,
        schema: {
          operationId: "customer_portal:members:add_member",
          tags,
          summary: "Add Member",
          body: CustomerPortalMemberCreate,
          response: responses({ 201: CustomerPortalMember }),
        },
      },
      async (request, reply) => reply.code(201).send(await members.add(portalMemberOf(principalOf(request)), request.body)),
    );

    app.patch(
      "/v1/customer-portal/members/:id",
      {
        config: TEAM_MANAGERS,
        schema: {
          operationId: "customer_portal:members:update_member",
          tags,
          summary: "Update Member",
          params: IdParams,
          body: CustomerPortalMemberUpdate,
          response: responses({ 200: CustomerPortalMember }, { notFound: true }),
        },
      },
      async (request) => members.update(portalMemberOf(principalOf(request)), request.params.id, request.body),
    );

    app.delete(
      "/v1/customer-portal/members/:id",
      {
        config: TEAM_MANAGERS,
        schema: {
          operationId: "customer_portal:members:remove_member",
          tags,
          summary: "Remove Member",
          params: IdParams,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await members.remove(portalMemberOf(principalOf(request)), request.params.id);
        return reply.code(204).send();
      },
    );
  };
