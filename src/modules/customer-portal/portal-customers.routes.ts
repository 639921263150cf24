import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { NoContent, PORTAL_SIDE, requireAuth, requirePortalBilling, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import {
  CustomerPaymentMethodConfirm,
  CustomerPaymentMethodCreate,
  CustomerPaymentMethodCreateResponse,
  ListResourceCustomerPaymentMethod,
  PaymentMethodListQuery,
} from "../payments/payment-methods.schemas.ts";
import { CustomerPortalCustomer, CustomerPortalCustomerUpdate } from "./portal-customers.schemas.ts";
import { portalCustomerOf } from "./portal-session.ts";
import type { PortalCustomerService } from "./portal-customers.service.ts";
import type { PortalPaymentMethodService } from "./portal-payment-methods.service.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const WRITE = ["customer_portal:write"];
const tags = ["customer_portal"];
const paymentMethodTags = ["customer_portal", "customers"];

export const portalCustomerRoutes =
  (service: PortalCustomerService, paymentMethods: PortalPaymentMethodService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/customers/me",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:customers:get",
          tags,
          summary: "Get Customer",
          response: responses({ 200: CustomerPortalCustomer }),
        },
      },
      async (request) => service.get(portalCustomerOf(principalOf(request))),
    );

    app.patch(
      "/v1/customer-portal/customers/me",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:customers:update",
          tags,
          summary: "Update Customer",
          body: CustomerPortalCustomerUpdate,
          response: responses({ 200: CustomerPortalCustomer }),
        },
      },
      async (request) => service.update(portalCustomerOf(principalOf(request)), request.body),
    );

    app.get(
      "/v1/customer-portal/customers/me/payment-methods",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:customers:list_payment_methods",
          tags: paymentMethodTags,
          summary: "List Customer Payment Methods",
          description: "Get saved payment methods of the authenticated customer.",
          querystring: PaymentMethodListQuery,
          response: responses({ 200: ListResourceCustomerPaymentMethod }),
        },
      },
      async (request) => paymentMethods.list(request.query, portalCustomerOf(principalOf(request))),
    );

    app.post(
      "/v1/customer-portal/customers/me/payment-methods",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:customers:add_payment_method",
          tags: paymentMethodTags,
          summary: "Add Customer Payment Method",
          description: "Add a payment method to the authenticated customer.",
          body: CustomerPaymentMethodCreate,
          response: responses({ 201: CustomerPaymentMethodCreateResponse, 400: ErrorBody }),
        },
      },
      async (request, reply) => reply.code(201).send(await paymentMethods.add(request.body, portalCustomerOf(principalOf(request)))),
    );

    app.post(
      "/v1/customer-portal/customers/me/payment-methods/confirm",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:customers:confirm_payment_method",
          tags: paymentMethodTags,
          summary: "Confirm Customer Payment Method",
          description: "Confirm a payment method for the authenticated customer.",
          body: CustomerPaymentMethodConfirm,
          response: responses({ 201: CustomerPaymentMethodCreateResponse, 400: ErrorBody }),
        },
      },
      async (request, reply) => reply.code(201).send(await paymentMethods.confirm(request.body, portalCustomerOf(principalOf(request)))),
    );

    app.delete(
      "/v1/customer-portal/customers/me/payment-methods/:id",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:customers:delete_payment_method",
          tags: paymentMethodTags,
          summary: "Delete Customer Payment Method",
          description: "Delete a payment method from the authenticated customer.",
          params: IdParams,
          response: responses({ 204: NoContent, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request, reply) => {
        await paymentMethods.remove(request.params.id, portalCustomerOf(principalOf(request)));
        return reply.code(204).send();
      },
    );
  };
