import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf, type OrganizationScope, type Principal } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { ListResourceOrder, Order, OrderCreate, OrderExportQuery, OrderFinalize, OrderListQuery, OrderUpdate } from "./orders.schemas.ts";
import type { OrderService } from "./orders.service.ts";
import { OrderInvoice, OrderReceipt, generateInvoiceResponses, receiptResponses } from "./order-documents.schemas.ts";
import type { OrderDocumentService } from "./order-documents.service.ts";

const READ = ["orders:read"];
const WRITE = ["orders:write"];
const tags = ["orders"];
// An order embeds a discount (a union of four shapes) and a customer: fast-json-stringify would
// resolve those unions by validation on every item; the mapper already builds the exact shape.

/** The flows behind the draft orders' routes (`flows/draft-order.ts`, `flows/finalize-order.ts`), handed over by services.ts. */
export interface DraftOrderFlows {
  create: (body: OrderCreate, principal: Principal) => Promise<Order>;
  finalize: (id: string, body: OrderFinalize, allowed: OrganizationScope) => Promise<Order>;
}

/** Every `/v1/orders/*` route: the orders, their invoice and receipt documents, and drafts charged off-session. */
export const orderRoutes =
  (orders: OrderService, documents: OrderDocumentService, drafts: DraftOrderFlows): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      "/v1/orders/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "orders:create",
          tags,
          summary: "Create Order",
          description: "Create a draft order for a customer and a one-time product, charged when finalized.",
          body: OrderCreate,
          response: responses({ 201: Order }),
        },
      },
      async (request, reply) => reply.code(201).send(await drafts.create(request.body, principalOf(request))),
    );

    app.post(
      "/v1/orders/:id/finalize",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "orders:finalize",
          tags,
          summary: "Finalize Order",
          description: "Finalize a draft order and charge the customer's payment method off-session.",
          params: IdParams,
          body: OrderFinalize,
          response: responses({ 200: Order, 402: ErrorBody, 412: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => drafts.finalize(request.params.id, request.body ?? {}, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/orders/",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:list",
          tags,
          summary: "List Orders",
          description: "List orders. Filter by metadata with `metadata[key]=value`.",
          querystring: OrderListQuery,
          response: responses({ 200: ListResourceOrder }),
        },
      },
      async (request) => orders.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/orders/export",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:export",
          tags,
          summary: "Export Orders",
          description: "Export orders as a CSV file.",
          querystring: OrderExportQuery,
          response: responses({}),
        },
      },
      async (request, reply) => {
        const { filename, csv } = await orders.export(request.query, organizationScope(principalOf(request)));
        return reply.type("text/csv; charset=utf-8").header("content-disposition", `attachment; filename="${filename}"`).send(csv);
      },
    );

    app.get(
      "/v1/orders/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:get",
          tags,
          summary: "Get Order",
          params: IdParams,
          response: responses({ 200: Order }, { notFound: true }),
        },
      },
      async (request) => orders.get(request.params.id, { allowed: organizationScope(principalOf(request)) }),
    );

    app.patch(
      "/v1/orders/:id",
      {
        ...plainJsonResponse,
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "orders:update",
          tags,
          summary: "Update Order",
          params: IdParams,
          body: OrderUpdate,
          response: responses({ 200: Order, 409: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => orders.update(request.params.id, request.body, { allowed: organizationScope(principalOf(request)) }),
    );

    // The hosted service lets a read-only token request an invoice: generating one changes no order data.
    app.post(
      "/v1/orders/:id/invoice",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:generate_invoice",
          tags,
          summary: "Generate Order Invoice",
          params: IdParams,
          response: generateInvoiceResponses(),
        },
      },
      async (request, reply) => {
        await documents.requestInvoice(request.params.id, { allowed: organizationScope(principalOf(request)) });
        return reply.code(202).send(null);
      },
    );

    app.get(
      "/v1/orders/:id/invoice",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:invoice",
          tags,
          summary: "Get Order Invoice",
          params: IdParams,
          response: responses({ 200: OrderInvoice }, { notFound: true }),
        },
      },
      async (request) => documents.invoice(request.params.id, { allowed: organizationScope(principalOf(request)) }),
    );

    app.get(
      "/v1/orders/:id/receipt",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "orders:receipt",
          tags,
          summary: "Get Order Receipt",
          params: IdParams,
          response: receiptResponses(OrderReceipt),
        },
      },
      async (request, reply) => {
        const receipt = await documents.receipt(request.params.id, { allowed: organizationScope(principalOf(request)) });
        return receipt ? receipt : reply.code(202).send();
      },
    );
  };
