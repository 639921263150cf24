import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { principalOf } from "../../http/auth.ts";
import { requirePortalBilling, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { CustomerWallet, CustomerWalletListQuery, ListResourceCustomerWallet } from "../wallets/wallets.schemas.ts";
import { portalCustomerOf } from "./portal-session.ts";
import type { PortalWalletService } from "./portal-wallets.service.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const tags = ["customer_portal", "wallets"];

/** `/v1/customer-portal/wallets/`: the session's customer's wallets, on the billing side (owners and billing managers). */
export const portalWalletRoutes =
  (wallets: PortalWalletService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/wallets/",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:wallets:list",
          tags,
          summary: "List Wallets",
          description: "List wallets of the authenticated customer.",
          querystring: CustomerWalletListQuery,
          response: responses({ 200: ListResourceCustomerWallet }),
        },
      },
      async (request) => wallets.list(request.query, portalCustomerOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/wallets/:id",
      {
        config: requirePortalBilling(READ),
        schema: {
          operationId: "customer_portal:wallets:get",
          tags,
          summary: "Get Wallet",
          description: "Get a wallet by ID for the authenticated customer.",
          params: IdParams,
          response: responses({ 200: CustomerWallet }, { notFound: true }),
        },
      },
      async (request) => wallets.get(request.params.id, portalCustomerOf(principalOf(request))),
    );
  };
