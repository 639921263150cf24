import type { Updateable } from "kysely";
import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, valueError, missingIssue } from "../../http/errors.ts";
import { asList, pageWindow, toPage } from "../../schema/pagination.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { disableEndpoint, nextSequence, restartPendingEvents, skipPendingEvents } from "./webhook-delivery.repository.ts";
import { scheduleDelivery } from "./webhook-delivery.service.ts";
import { generateWebhookSecret, openWebhookSecret, sealWebhookSecret } from "./webhook-secrets.ts";
import { urlPolicyOf, urlProblem } from "../../http/outbound-url-policy.ts";
import { toWebhookDelivery, toWebhookEndpoint } from "./webhooks.mapper.ts";
import {
  findEndpoint,
  findEndpointEventForUpdate,
  findEndpointForUpdate,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  requeueEndpointEvent,
  updateEndpoint,
} from "./webhooks.repository.ts";
import type {
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointListQuery,
  WebhookEndpointUpdate,
  WebhookFormat,
} from "./webhooks.schemas.ts";
import type { WebhookEndpointRow, WebhookEndpointsTable } from "./webhooks.table.ts";

const HTTP_CODE_CLASS: Record<string, number> = { "2xx": 200, "3xx": 300, "4xx": 400, "5xx": 500 };

const present = (deps: Deps, row: WebhookEndpointRow): WebhookEndpoint =>
  toWebhookEndpoint(row, openWebhookSecret(deps.secret, row.secret_sealed));

function checkUrl(deps: Deps, url: string): void {
  const problem = urlProblem(url, urlPolicyOf(deps.config));
  if (problem) throw valueError(["body", "url"], problem, url);
}

/** Discord and Slack message formats are not rendered by this server. */
function checkFormat(format: WebhookFormat): void {
  if (format !== "raw") throw valueError(["body", "format"], "Only the raw format is supported.", format);
}

/** The owner names the organization; an organization token acts for its own. */
async function organizationFor(deps: Deps, principal: Principal, requested: string | null | undefined): Promise<string> {
  if (principal.kind === "organization") {
    if (requested !== undefined && requested !== null) {
      throw valueError(["body", "organization_id"], "Setting organization_id is disallowed when using an organization token.", requested);
    }
    return principal.organizationId;
  }
  if (requested === undefined || requested === null) {
    throw new RequestValidationError([missingIssue(["body", "organization_id"])]);
  }
  if (!(await findOrganization(deps.db, requested, null)))
    throw valueError(["body", "organization_id"], "Organization not found.", requested);
  return requested;
}

async function mustFind(deps: Deps, id: string, allowed: OrganizationScope): Promise<WebhookEndpointRow> {
  const row = await findEndpoint(deps.db, id, allowed);
  if (!row) throw new ResourceNotFound();
  return row;
}

async function createWebhookEndpoint(deps: Deps, body: WebhookEndpointCreate, principal: Principal): Promise<WebhookEndpoint> {
  checkUrl(deps, body.url);
  checkFormat(body.format);
  const organizationId = await organizationFor(deps, principal, body.organization_id);
  const secret = generateWebhookSecret();
  const row = await insertEndpoint(deps.db, {
    organization_id: organizationId,
    url: body.url,
    name: body.name ?? null,
    format: body.format,
    secret_sealed: sealWebhookSecret(deps.secret, secret),
    events: [...new Set(body.events)],
    created_at: deps.now(),
    modified_at: null,
  });
  return toWebhookEndpoint(row, secret);
}

async function listWebhookEndpoints(deps: Deps, query: WebhookEndpointListQuery, allowed: OrganizationScope) {
  const page = pageWindow(query);
  const { rows, total } = await listEndpoints(deps.readDb, { organizationIds: asList(query.organization_id) }, allowed, page);
  return toPage(
    rows.map((row) => present(deps, row)),
    total,
    query,
  );
}

/** `null` leaves a field unchanged, except `name`, which it clears. */
async function updateWebhookEndpoint(
  deps: Deps,
  id: string,
  body: WebhookEndpointUpdate,
  allowed: OrganizationScope,
): Promise<WebhookEndpoint> {
  if (body.url !== undefined && body.url !== null) checkUrl(deps, body.url);
  if (body.format !== undefined && body.format !== null) checkFormat(body.format);
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await findEndpointForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const now = deps.now();
    const changes: Updateable<WebhookEndpointsTable> = { modified_at: now };
    if (body.url != null) changes.url = body.url;
    if (body.name !== undefined) changes.name = body.name;
    if (body.format != null) changes.format = body.format;
    if (body.events != null) {
      changes.events = [...new Set(body.events)];
      // Events held back behind one of a type no longer subscribed must not wait for its fan-out.
      await scheduleDelivery(trx, id);
    }
    // Disabled, its pending events wait (they are not skipped), and no new ones are queued for it.
    if (body.enabled === false && current.enabled) await disableEndpoint(trx, id, now);
    if (body.enabled === true && !current.enabled) {
      // A re-enabled endpoint starts a new failure window and resends what is still pending, in order.
      changes.enabled = true;
      changes.failing_since = null;
      await restartPendingEvents(trx, id, now);
      await scheduleDelivery(trx, id);
    }
    return updateEndpoint(trx, id, changes);
  });
  return present(deps, row);
}

/**
 * A new secret, current at once. The one it replaces keeps signing beside it for
 * `WEBHOOK_SECRET_OVERLAP`, so deliveries already on their way (and retries) verify with either
 * while the receiver switches. A rotation within the overlap drops the oldest secret at once:
 * rotating twice retires a leaked secret immediately.
 */
async function rotateWebhookSecret(deps: Deps, id: string, allowed: OrganizationScope): Promise<WebhookEndpoint> {
  const secret = generateWebhookSecret();
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await findEndpointForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const now = deps.now();
    return updateEndpoint(trx, id, {
      secret_sealed: sealWebhookSecret(deps.secret, secret),
      previous_secret_sealed: current.secret_sealed,
      previous_secret_expires_at: new Date(now.getTime() + deps.config.webhookSecretOverlapMs),
      modified_at: now,
    });
  });
  return toWebhookEndpoint(row, secret);
}

async function deleteWebhookEndpoint(deps: Deps, id: string, allowed: OrganizationScope): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await findEndpointForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const now = deps.now();
    await disableEndpoint(trx, id, now);
    await skipPendingEvents(trx, id, now);
    await updateEndpoint(trx, id, { deleted_at: now, modified_at: now });
  });
}

/**
 * Sends an event again. A settled event is sent out of band: at once, with a fresh schedule,
 * neither waiting for its object's pending events nor holding them back (its payload keeps the
 * time it happened). Put back in its object's order instead, an old event would reach the
 * receiver after newer ones of the same object, and make them wait. A pending one is simply
 * made due now, in its place: it still goes after the earlier pending events of its object.
 */
async function redeliverWebhookEvent(deps: Deps, eventId: string, allowed: OrganizationScope): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const event = await findEndpointEventForUpdate(trx, eventId, allowed);
    if (!event) throw new ResourceNotFound();
    const now = deps.now();
    if (event.status === "pending") {
      await requeueEndpointEvent(trx, eventId, { now, outOfBand: false });
    } else {
      // A fresh place after everything recorded: the endpoint's events stay listed in the order they were sent.
      await requeueEndpointEvent(trx, eventId, { now, outOfBand: true, sequence: await nextSequence(trx) });
    }
    if (event.enabled) await scheduleDelivery(trx, event.endpoint_id);
  });
}

async function listWebhookDeliveries(deps: Deps, query: WebhookDeliveryListQuery, allowed: OrganizationScope) {
  const page = pageWindow(query);
  const { rows, total } = await listDeliveries(
    deps.readDb,
    {
      endpointIds: asList(query.endpoint_id),
      start: query.start_timestamp ? new Date(query.start_timestamp) : null,
      end: query.end_timestamp ? new Date(query.end_timestamp) : null,
      succeeded: query.succeeded ?? null,
      text: query.query ?? null,
      httpCodeClass: query.http_code_class ? (HTTP_CODE_CLASS[query.http_code_class] ?? null) : null,
      eventTypes: asList(query.event_type),
    },
    allowed,
    page,
  );
  return toPage(rows.map(toWebhookDelivery), total, query);
}

export function createWebhookService(deps: Deps) {
  return {
    create: (body: WebhookEndpointCreate, principal: Principal) => createWebhookEndpoint(deps, body, principal),
    get: async (id: string, allowed: OrganizationScope) => present(deps, await mustFind(deps, id, allowed)),
    list: (query: WebhookEndpointListQuery, allowed: OrganizationScope) => listWebhookEndpoints(deps, query, allowed),
    update: (id: string, body: WebhookEndpointUpdate, allowed: OrganizationScope) => updateWebhookEndpoint(deps, id, body, allowed),
    delete: (id: string, allowed: OrganizationScope) => deleteWebhookEndpoint(deps, id, allowed),
    rotateSecret: (id: string, allowed: OrganizationScope) => rotateWebhookSecret(deps, id, allowed),
    redeliver: (eventId: string, allowed: OrganizationScope) => redeliverWebhookEvent(deps, eventId, allowed),
    listDeliveries: (query: WebhookDeliveryListQuery, allowed: OrganizationScope) => listWebhookDeliveries(deps, query, allowed),
  };
}
export type WebhookService = ReturnType<typeof createWebhookService>;
