import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ErrorBody, ValidationErrorBody } from "../../http/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import {
  CustomerSeat,
  CustomerSeatClaimResponse,
  InvitationTokenParams,
  SeatAssign,
  SeatClaim,
  SeatClaimInfo,
  SeatParams,
  SeatsList,
  SeatsListQuery,
} from "./customer-seats.schemas.ts";
import type { CustomerSeatService } from "./customer-seats.service.ts";
import { containerRefOf } from "./seat-containers.ts";

const READ = ["customer_seats:read", "customer_seats:write"];
const WRITE = ["customer_seats:write"];
const tags = ["customer-seats"];

/** `/v1/customer-seats`: the seller's seats of seat-based purchases, and the holder's unauthenticated claim. */
export const customerSeatRoutes =
  (seats: CustomerSeatService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      "/v1/customer-seats",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customer-seats:assign_seat",
          tags,
          summary: "Assign Seat",
          body: SeatAssign,
          response: responses({ 200: CustomerSeat, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request) =>
        seats.assign(containerRefOf(request.body, "body"), request.body, { allowed: organizationScope(principalOf(request)) }),
    );

    app.get(
      "/v1/customer-seats",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ),
        schema: {
          operationId: "customer-seats:list_seats",
          tags,
          summary: "List Seats",
          querystring: SeatsListQuery,
          response: responses({ 200: SeatsList, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => seats.list(containerRefOf(request.query, "query"), { allowed: organizationScope(principalOf(request)) }),
    );

    app.delete(
      "/v1/customer-seats/:seat_id",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customer-seats:revoke_seat",
          tags,
          summary: "Revoke Seat",
          params: SeatParams,
          response: responses({ 200: CustomerSeat }, { notFound: true }),
        },
      },
      async (request) => seats.revoke(request.params.seat_id, { allowed: organizationScope(principalOf(request)) }),
    );

    app.post(
      "/v1/customer-seats/:seat_id/resend",
      {
        config: requireAuth(ORGANIZATION_SIDE, WRITE),
        schema: {
          operationId: "customer-seats:resend_invitation",
          tags,
          summary: "Resend Invitation",
          params: SeatParams,
          response: responses({ 200: CustomerSeat, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request) => seats.resend(request.params.seat_id, { allowed: organizationScope(principalOf(request)) }),
    );

    app.get(
      "/v1/customer-seats/claim/:invitation_token",
      {
        schema: {
          operationId: "customer-seats:get_claim_info",
          tags,
          summary: "Get Claim Info",
          params: InvitationTokenParams,
          response: { 200: SeatClaimInfo, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody },
        },
      },
      async (request) => seats.claimInfo(request.params.invitation_token),
    );

    app.post(
      "/v1/customer-seats/claim",
      {
        schema: {
          operationId: "customer-seats:claim_seat",
          tags,
          summary: "Claim Seat",
          body: SeatClaim,
          response: { 200: CustomerSeatClaimResponse, 400: ErrorBody, 403: ErrorBody, 422: ValidationErrorBody },
        },
      },
      async (request) => seats.claim(request.body.invitation_token),
    );
  };
