import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../kit/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { IdParams } from "../../kit/schema.ts";
import { OrderInvoice, OrderReceipt, generateInvoiceResponses, receiptResponses } from "./order-documents.schemas.ts";
import type { OrderDocumentService } from "./order-documents.service.ts";

// The anchor lets a read-only token request an invoice: generating one changes no order data.
const READ = ["orders:read"];
const tags = ["orders"];

export const orderDocumentRoutes =
  (service: OrderDocumentService): FastifyPluginAsyncTypebox =>
  async (app) => {
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
        await service.requestInvoice(request.params.id, { allowed: organizationScope(principalOf(request)) });
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
      async (request) => service.invoice(request.params.id, { allowed: organizationScope(principalOf(request)) }),
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
        const receipt = await service.receipt(request.params.id, { allowed: organizationScope(principalOf(request)) });
        return receipt ? receipt : reply.code(202).send();
      },
    );
  };
