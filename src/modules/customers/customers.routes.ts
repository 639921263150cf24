import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf, type OrganizationScope } from "../../http/auth.ts";
import { NoContent, ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import {
  Customer,
  CustomerCreate,
  CustomerDeleteQuery,
  CustomerExportQuery,
  CustomerListQuery,
  CustomerUpdate,
  CustomerUpdateExternalId,
  ExternalIdParams,
  ListResourceCustomer,
} from "./customers.schemas.ts";
import type { CustomerService } from "./customers.service.ts";
import type { CustomerTarget } from "./customer-lookups.ts";
import { ListResourcePaymentMethod, PaymentMethodListQuery } from "../payments/payment-methods.schemas.ts";
import { CustomerSession, CustomerSessionCreate } from "./customer-sessions.schemas.ts";
import type { CustomerSessionService } from "./customer-sessions.service.ts";

/** The deletion flow, handed in by the composition root (features never import flows). */
export interface CustomerDeletion {
  delete: (target: CustomerTarget, options: CustomerDeleteQuery, allowed: OrganizationScope) => Promise<void>;
}

const READ = ["customers:read", "customers:write"];
const WRITE = ["customers:write"];
const tags = ["customers"];

export const customerRoutes =
  (customers: CustomerService, deletion: CustomerDeletion, sessions: CustomerSessionService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customers/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:list",
          tags,
          summary: "List Customers",
          querystring: CustomerListQuery,
          response: responses({ 200: ListResourceCustomer }),
        },
      },
      async (request) => customers.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/customers/",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:create",
          tags,
          summary: "Create Customer",
          body: CustomerCreate,
          response: responses({ 201: Customer }),
        },
      },
      async (request, reply) => reply.code(201).send(await customers.create(principalOf(request), request.body)),
    );

    app.get(
      "/v1/customers/export",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:export",
          tags,
          summary: "Export Customers",
          description: "Export customers as a CSV file.",
          querystring: CustomerExportQuery,
          response: responses({}),
        },
      },
      async (request, reply) =>
        reply
          .type("text/csv; charset=utf-8")
          .header("content-disposition", 'attachment; filename="polar-customers.csv"')
          .send(await customers.export(request.query, organizationScope(principalOf(request)))),
    );

    app.get(
      "/v1/customers/external/:external_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:get_external",
          tags,
          summary: "Get Customer by External ID",
          params: ExternalIdParams,
          response: responses({ 200: Customer }, { notFound: true }),
        },
      },
      async (request) => customers.getByExternalId(request.params.external_id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/customers/external/:external_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:update_external",
          tags,
          summary: "Update Customer by External ID",
          params: ExternalIdParams,
          body: CustomerUpdateExternalId,
          response: responses({ 200: Customer }, { notFound: true }),
        },
      },
      async (request) => customers.updateByExternalId(request.params.external_id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/customers/external/:external_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:delete_external",
          tags,
          summary: "Delete Customer by External ID",
          description: "Immediately cancels any active subscriptions and revokes any active benefits.",
          params: ExternalIdParams,
          querystring: CustomerDeleteQuery,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await deletion.delete({ externalId: request.params.external_id }, request.query, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );

    app.get(
      "/v1/customers/external/:external_id/payment-methods",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:list_payment_methods_external",
          tags,
          summary: "List Customer Payment Methods by External ID",
          description: "Get saved payment methods of a customer by external ID.",
          params: ExternalIdParams,
          querystring: PaymentMethodListQuery,
          response: responses({ 200: ListResourcePaymentMethod }, { notFound: true }),
        },
      },
      async (request) =>
        customers.listPaymentMethods({ externalId: request.params.external_id }, request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/customers/:id/payment-methods",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:list_payment_methods",
          tags,
          summary: "List Customer Payment Methods",
          description: "Get saved payment methods of a customer.",
          params: IdParams,
          querystring: PaymentMethodListQuery,
          response: responses({ 200: ListResourcePaymentMethod }, { notFound: true }),
        },
      },
      async (request) => customers.listPaymentMethods({ id: request.params.id }, request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/customers/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customers:get",
          tags,
          summary: "Get Customer",
          params: IdParams,
          response: responses({ 200: Customer }, { notFound: true }),
        },
      },
      async (request) => customers.get(request.params.id, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/customers/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:update",
          tags,
          summary: "Update Customer",
          params: IdParams,
          body: CustomerUpdate,
          response: responses({ 200: Customer }, { notFound: true }),
        },
      },
      async (request) => customers.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );

    app.delete(
      "/v1/customers/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customers:delete",
          tags,
          summary: "Delete Customer",
          description: "Cancels the customer's active subscriptions, revokes its benefits and frees its external ID; its orders are kept.",
          params: IdParams,
          querystring: CustomerDeleteQuery,
          response: responses({ 204: NoContent }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await deletion.delete({ id: request.params.id }, request.query, organizationScope(principalOf(request)));
        return reply.code(204).send();
      },
    );

    app.post(
      "/v1/customer-sessions/",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["customer_sessions:write"]),
        schema: {
          operationId: "customer-sessions:create",
          tags: ["customer-sessions"],
          summary: "Create Customer Session",
          body: CustomerSessionCreate,
          response: responses({ 201: CustomerSession }),
        },
      },
      async (request, reply) => reply.code(201).send(await sessions.create(request.body, organizationScope(principalOf(request)))),
    );
  };
