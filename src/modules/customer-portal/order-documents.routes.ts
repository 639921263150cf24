import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { principalOf } from "../../kit/auth.ts";
import { PORTAL_SIDE, requireAuth, responses } from "../../kit/routes.ts";
import { IdParams } from "../../kit/schema.ts";
import {
  CustomerOrderInvoice,
  CustomerOrderReceipt,
  generateInvoiceResponses,
  receiptResponses,
} from "../orders/order-documents.schemas.ts";
import type { OrderDocumentService } from "../orders/order-documents.service.ts";
import type { OrderVisibility } from "../orders/orders.repository.ts";
import { portalCustomerOf } from "./session.ts";

// Billing-read access is enough, as the anchor's portal: an invoice of one's own order changes nothing else.
const READ = ["customer_portal:read", "customer_portal:write"];
const tags = ["customer_portal"];

/** A session sees its own customer's orders only; any other id is simply not found. */
const ownOrders = (request: FastifyRequest): OrderVisibility => {
  const session = portalCustomerOf(principalOf(request));
  return { allowed: [session.organizationId], customerId: session.customerId };
};

export const portalOrderDocumentRoutes =
  (service: OrderDocumentService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      "/v1/customer-portal/orders/:id/invoice",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:orders:generate_invoice",
          tags,
          summary: "Generate Order Invoice",
          params: IdParams,
          response: generateInvoiceResponses(),
        },
      },
      async (request, reply) => {
        await service.requestInvoice(request.params.id, ownOrders(request));
        return reply.code(202).send(null);
      },
    );

    app.get(
      "/v1/customer-portal/orders/:id/invoice",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:orders:invoice",
          tags,
          summary: "Get Order Invoice",
          params: IdParams,
          response: responses({ 200: CustomerOrderInvoice }, { notFound: true }),
        },
      },
      async (request) => service.invoice(request.params.id, ownOrders(request)),
    );

    app.get(
      "/v1/customer-portal/orders/:id/receipt",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:orders:receipt",
          tags,
          summary: "Get Order Receipt",
          params: IdParams,
          response: receiptResponses(CustomerOrderReceipt),
        },
      },
      async (request, reply) => {
        const receipt = await service.receipt(request.params.id, ownOrders(request));
        return receipt ? receipt : reply.code(202).send();
      },
    );
  };
