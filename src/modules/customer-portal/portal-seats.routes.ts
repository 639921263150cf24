import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { principalOf } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { PORTAL_SIDE, requireAuth, requirePortalBilling, responses } from "../../http/route-auth.ts";
import { plainJsonResponse } from "../../http/serialization.ts";
import { PaginationQuery } from "../../schema/pagination.ts";
import { CustomerSeat, CustomerSeatAssign, SeatParams, SeatsList, SeatsListQuery } from "../customer-seats/customer-seats.schemas.ts";
import type { CustomerSeatService } from "../customer-seats/customer-seats.service.ts";
import { containerRefOf, type SeatScope } from "../customer-seats/customer-seats.steps.ts";
import { ListResourceCustomerSubscription } from "./portal-subscriptions.schemas.ts";
import type { PortalSubscriptionService } from "./portal-subscriptions.service.ts";
import { portalCustomerOf, portalSessionOf } from "./portal-session.ts";

const READ = ["customer_portal:read", "customer_portal:write"];
const WRITE = ["customer_portal:write"];
const tags = ["customer_portal", "seats"];

/** The session's own seats: those of the subscriptions and orders its customer bought. */
const scopeOf = (principal: Parameters<typeof portalCustomerOf>[0]): SeatScope => {
  const { organizationId, customerId } = portalCustomerOf(principal);
  return { allowed: [organizationId], customerId };
};

/** `/v1/customer-portal/seats`: the billing customer's seats (any session reads them; owners and billing managers change them). */
export const portalSeatRoutes =
  (seats: CustomerSeatService, subscriptions: PortalSubscriptionService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/customer-portal/seats",
      {
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:seats:list_seats",
          tags,
          summary: "List Seats",
          querystring: SeatsListQuery,
          response: responses({ 200: SeatsList, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => seats.list(containerRefOf(request.query, "query"), scopeOf(principalOf(request))),
    );

    app.post(
      "/v1/customer-portal/seats",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:seats:assign_seat",
          tags,
          summary: "Assign Seat",
          body: CustomerSeatAssign,
          response: responses({ 200: CustomerSeat, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => {
        const scope = scopeOf(principalOf(request));
        const ref = request.body.checkout_id
          ? await seats.containerOfCheckout(request.body.checkout_id, scope)
          : containerRefOf(request.body, "body");
        return seats.assign(ref, request.body, scope);
      },
    );

    app.delete(
      "/v1/customer-portal/seats/:seat_id",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:seats:revoke_seat",
          tags,
          summary: "Revoke Seat",
          params: SeatParams,
          response: responses({ 200: CustomerSeat }, { notFound: true }),
        },
      },
      async (request) => seats.revoke(request.params.seat_id, scopeOf(principalOf(request))),
    );

    app.post(
      "/v1/customer-portal/seats/:seat_id/resend",
      {
        config: requirePortalBilling(WRITE),
        schema: {
          operationId: "customer_portal:seats:resend_invitation",
          tags,
          summary: "Resend Invitation",
          params: SeatParams,
          response: responses({ 200: CustomerSeat, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => seats.resend(request.params.seat_id, scopeOf(principalOf(request))),
    );

    app.get(
      "/v1/customer-portal/seats/subscriptions",
      {
        ...plainJsonResponse,
        config: requireAuth(PORTAL_SIDE, READ),
        schema: {
          operationId: "customer_portal:seats:list_claimed_subscriptions",
          tags,
          summary: "List Claimed Subscriptions",
          querystring: Type.Object(PaginationQuery),
          response: responses({ 200: ListResourceCustomerSubscription }),
        },
      },
      async (request) => {
        const session = portalSessionOf(principalOf(request));
        return subscriptions.listSeatSubscriptions(
          request.query,
          portalCustomerOf(session),
          session.kind === "member" ? session.memberId : null,
        );
      },
    );
  };
