import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { requirePortalBilling, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import {
  CustomerOrder,
  CustomerOrderConfirmPayment,
  CustomerOrderListQuery,
  CustomerOrderPaymentConfirmation,
  CustomerOrderPaymentStatus,
  CustomerOrderUpdate,
  ListResourceCustomerOrder,
} from "./portal-orders.schemas.ts";
import type { PortalOrderService } from "./portal-orders.service.ts";
import type { PortalOrderPayments } from "./portal-order-payments.service.ts";
import { portalCustomerOf } from "./portal-session.ts";
import type { FastifyRequest } from "fastify";
import {
  CustomerOrderCreditNotes,
  CustomerOrderInvoice,
  CustomerOrderReceipt,
  generateInvoiceResponses,
  receiptResponses,
} from "../orders/order-documents.schemas.ts";
import type { OrderDocumentService } from "../orders/orders.steps.ts";
import type { OrderVisibility } from "../orders/orders.steps.ts";

// Billing-read access is enough for the documents too, as the hosted service's portal: an invoice of one's
// own order changes nothing else.
const READ = ["customer_portal:read", "customer_portal:write"];
const WRITE = ["customer_portal:write"];
const tags = ["customer_portal", "orders"];
const documentTags = ["customer_portal"];

/** A session sees its own customer's orders only; any other id is simply not found. */
const ownOrders = (request: FastifyRequest): OrderVisibility => {
  const session = portalCustomerOf(principalOf(request));
  return { allowed: [session.organizationId], customerId: session.customerId };
};

/** Every `/v1/customer-portal/orders/*` route: the session customer's orders and their documents. */
export const portalOrderRoutes =
  (orders: PortalOrderService, documents: OrderDocumentService, payments: PortalOrderPayments): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/orders/",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:orders:list",
          tags,
          summary: "List Orders",
          description: "List orders of the authenticated customer.",
          querystring: CustomerOrderListQuery,
          response: responses({ 200: ListResourceCustomerOrder }),
        },
      },
      async (request) => orders.list(request.query, portalCustomerOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/orders/:id",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:orders:get",
          tags,
          summary: "Get Order",
          description: "Get an order of the authenticated customer by ID.",
          params: IdParams,
          response: responses({ 200: CustomerOrder }, { notFound: true }),
        },
      },
      async (request) => orders.get(request.params.id, portalCustomerOf(principalOf(request))),
    );

    app.patch(
      "/v1/customer-portal/orders/:id",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:orders:update",
          tags,
          summary: "Update Order",
          description: "Update the billing details of an order of the authenticated customer.",
          params: IdParams,
          body: CustomerOrderUpdate,
          response: responses({ 200: CustomerOrder, 409: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => orders.update(request.params.id, request.body, portalCustomerOf(principalOf(request))),
    );

    app.post(
      "/v1/customer-portal/orders/:id/invoice",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:orders:generate_invoice",
          tags: documentTags,
          summary: "Generate Order Invoice",
          params: IdParams,
          response: generateInvoiceResponses(),
        },
      },
      async (request, reply) => {
        await documents.requestInvoice(request.params.id, ownOrders(request));
        return reply.code(202).send(null);
      },
    );

    app.get(
      "/v1/customer-portal/orders/:id/invoice",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:orders:invoice",
          tags: documentTags,
          summary: "Get Order Invoice",
          params: IdParams,
          response: responses({ 200: CustomerOrderInvoice }, { notFound: true }),
        },
      },
      async (request) => documents.invoice(request.params.id, ownOrders(request)),
    );

    app.get(
      "/v1/customer-portal/orders/:id/receipt",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:orders:receipt",
          tags: documentTags,
          summary: "Get Order Receipt",
          params: IdParams,
          response: receiptResponses(CustomerOrderReceipt),
        },
      },
      async (request, reply) => {
        const receipt = await documents.receipt(request.params.id, ownOrders(request));
        return receipt ? receipt : reply.code(202).send();
      },
    );

    // Ours: the order's credit notes, one per refund once its invoice exists (the reference has none).
    app.get(
      "/v1/customer-portal/orders/:id/credit-notes",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:orders:credit_notes",
          tags: documentTags,
          summary: "List Order Credit Notes",
          description: "The credit notes of an order of the authenticated customer, oldest first, each with its link once rendered.",
          params: IdParams,
          response: responses({ 200: CustomerOrderCreditNotes }, { notFound: true }),
        },
      },
      async (request) => ({ items: await documents.creditNotes(request.params.id, ownOrders(request)) }),
    );

    app.get(
      "/v1/customer-portal/orders/:id/payment-status",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:orders:get_payment_status",
          tags,
          summary: "Get Order Payment Status",
          description: "Get the current payment status for an order.",
          params: IdParams,
          response: responses({ 200: CustomerOrderPaymentStatus }, { notFound: true }),
        },
      },
      async (request) => payments.status(request.params.id, portalCustomerOf(principalOf(request))),
    );

    app.post(
      "/v1/customer-portal/orders/:id/confirm-payment",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:orders:confirm_retry_payment",
          tags,
          summary: "Confirm Retry Payment",
          description: "Confirm a retry payment using a Stripe confirmation token.",
          params: IdParams,
          body: CustomerOrderConfirmPayment,
          response: responses({ 200: CustomerOrderPaymentConfirmation, 409: ErrorBody, 429: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => payments.confirm(request.params.id, request.body, portalCustomerOf(principalOf(request))),
    );
  };
