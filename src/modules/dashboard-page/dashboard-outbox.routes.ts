import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import { InsufficientScope, ResourceNotFound } from "../../http/errors.ts";
import { PaginationQuery } from "../../schema/pagination.ts";
import { IdParams, StringEnum, toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { EmailOutbox } from "../emails/emails.service.ts";
import type { EmailRow } from "../emails/emails.table.ts";
import { DashboardSessionEnded } from "./dashboard-proxy.routes.ts";
import { DASHBOARD_PATH } from "./dashboard-session.ts";
import { clearSession, visitOf, type DashboardContext } from "./dashboard-visit.ts";

/** The dashboard's reads the public API does not serve: `/dashboard/api-ext/…`, same session, same scopes. */
export const DASHBOARD_EXTENSION_PATH = `${DASHBOARD_PATH}/api-ext`;
/** The outbox shows customers' addresses and what they bought: the scope that already reads them. */
const OUTBOX_SCOPE = "customers:read";

const OutboxQuery = Type.Object(
  { status: Type.Optional(StringEnum(["pending", "sent", "failed", "kept"] as const)), ...PaginationQuery },
  { additionalProperties: false },
);

const summaryOf = (row: EmailRow) => ({
  id: row.id,
  created_at: toIso(row.created_at),
  template: row.template,
  recipient: row.recipient,
  subject: row.subject,
  status: row.status,
  attempts: row.attempts,
  sent_at: toIsoOrNull(row.sent_at),
  last_error: row.last_error,
});

/**
 * The session's organization, when the session is alive and its token reads customers: an
 * organization token is bound to its own, whatever the cookie says; an owner's token to the one chosen.
 */
async function organizationOf(context: DashboardContext, request: FastifyRequest, reply: FastifyReply): Promise<string> {
  const visit = await visitOf(context, request);
  if ("missing" in visit) {
    clearSession(reply, request);
    throw new DashboardSessionEnded();
  }
  const organizationId = visit.as.organizationId ?? visit.session.organizationId;
  if (organizationId === null) throw new ResourceNotFound("Choose an organization first.");
  if (visit.as.scopes !== "all" && !visit.as.scopes.includes(OUTBOX_SCOPE)) throw new InsufficientScope([OUTBOX_SCOPE]);
  return organizationId;
}

/**
 * The organization's outbox for the dashboard's Emails page: the list (newest first) and one email
 * with its text and HTML. No public `/v1` route serves the outbox (docs/decisions.md); reads only, so
 * no CSRF token, like the proxy's GETs.
 */
export const dashboardOutboxRoutes =
  (context: DashboardContext, outbox: EmailOutbox): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(`${DASHBOARD_EXTENSION_PATH}/emails`, { schema: { hide: true, querystring: OutboxQuery } }, async (request, reply) => {
      const organizationId = await organizationOf(context, request, reply);
      const query: Static<typeof OutboxQuery> = request.query;
      const page = await outbox.listOfOrganization(organizationId, query.status ?? null, query);
      return reply.header("cache-control", "no-store").send({ items: page.items.map(summaryOf), pagination: page.pagination });
    });

    app.get(`${DASHBOARD_EXTENSION_PATH}/emails/:id`, { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      const organizationId = await organizationOf(context, request, reply);
      const row = await outbox.getOfOrganization(organizationId, request.params.id);
      if (!row) throw new ResourceNotFound("Email not found.");
      return reply.header("cache-control", "no-store").send({
        ...summaryOf(row),
        sender: row.sender_name ? `${row.sender_name} <${row.sender_address}>` : row.sender_address,
        reply_to: row.reply_to,
        text: row.text,
        html: row.html,
      });
    });
  };
