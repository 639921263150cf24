import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf, type OrganizationScope } from "../../http/auth.ts";
import { ErrorBody } from "../../http/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { IdParams } from "../../schema/primitives.ts";
import { creditNoteResponses } from "../orders/order-documents.schemas.ts";
import { RefundCreate, RefundListQuery } from "./refund-inputs.schemas.ts";
import { ListResourceRefund, Refund } from "./refunds.schemas.ts";
import type { RefundService } from "./refunds.service.ts";

const tags = ["refunds"];

/** The refund-order flow, handed in by the composition root (a feature never imports a flow). */
type RefundOrder = (input: RefundCreate, allowed: OrganizationScope) => Promise<Refund>;

/** Every `/v1/refunds/*` route. */
export const refundRoutes =
  (refunds: RefundService, refundOrder: RefundOrder): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/refunds/",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["refunds:read", "refunds:write"]),
        schema: {
          operationId: "refunds:list",
          tags,
          summary: "List Refunds",
          querystring: RefundListQuery,
          response: responses({ 200: ListResourceRefund }),
        },
      },
      async (request) => refunds.list(request.query, organizationScope(principalOf(request))),
    );

    app.post(
      "/v1/refunds/",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["refunds:write"]),
        schema: {
          operationId: "refunds:create",
          tags,
          summary: "Create Refund",
          body: RefundCreate,
          response: responses({ 201: Refund, 400: ErrorBody }, { notFound: true }),
        },
      },
      async (request, reply) => reply.code(201).send(await refundOrder(request.body, organizationScope(principalOf(request)))),
    );

    // Ours (the reference's Refund has no document): the credit note a refund of an invoiced
    // order issues. Read scopes as the order documents', since reading it changes nothing.
    app.get(
      "/v1/refunds/:id/credit-note",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["refunds:read", "refunds:write"]),
        schema: {
          operationId: "refunds:credit_note",
          tags,
          summary: "Get Refund Credit Note",
          description:
            "The credit note a succeeded refund of an order whose invoice exists issues: 200 with its link, 202 while it is being rendered, 404 `CreditNoteDoesNotExist` when the refund has none.",
          params: IdParams,
          response: creditNoteResponses(),
        },
      },
      async (request, reply) => {
        const note = await refunds.creditNote(request.params.id, organizationScope(principalOf(request)));
        return note ? note : reply.code(202).send();
      },
    );
  };
