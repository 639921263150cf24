import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob, type JobSpec } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { recordWebhookEvents, type WebhookEvent, type WebhookEventType } from "../../jobs/webhook-outbox.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { asList, paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { TokenPrefix, generateToken } from "../../values/tokens.ts";
import { findLiveCustomer } from "../customers/customers.steps.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { findProductOrganization } from "../products/products.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { TaxEngine } from "../../adapters/tax-engine/tax.engine.ts";
import type { CheckoutChanges, CheckoutCreate, CheckoutListQuery, CheckoutUpdate } from "./checkout-inputs.schemas.ts";
import type { ProductWithRelationsJson } from "../products/products.mapper.ts";
import { applyChanges, blankDraft, draftColumns, draftOf } from "./checkouts.draft.ts";
import { NotOpenCheckout } from "./checkouts.errors.ts";
import { toCheckout } from "./checkouts.mapper.ts";
import {
  countCheckouts,
  findCheckoutForUpdate,
  findCheckoutProducts,
  findCheckoutWithRelations,
  findProductsWithRelations,
  insertCheckout,
  listCheckouts,
  updateCheckout,
  type CheckoutListFilters,
  type CheckoutLocator,
  type CheckoutWithRelations,
} from "./checkouts.repository.ts";
import type { Checkout } from "./checkouts.schemas.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

export interface PublishedCheckout {
  full: CheckoutWithRelations;
  checkout: Checkout;
}

/** Schedules the `open` → `expired` job at the session's expiry (replacing a pending one). */
export const scheduleCheckoutExpiry = (db: Executor, checkoutId: string, runAt: Date) =>
  enqueueJob(db, TaskName.checkoutExpire, { checkoutId }, { runAt, jobKey: `${TaskName.checkoutExpire}:${checkoutId}` });

/** The part of an edit's context every edit shares: the organization's tax terms, the tax engine, the time. */
const editTerms = (db: Executor, organization: OrganizationRow, taxEngine: TaxEngine, now: Date) => ({
  db,
  defaultTaxBehavior: organization.default_tax_behavior,
  taxRegistrations: organization.tax_registrations,
  sellerCountry: organization.legal_address?.country ?? null,
  taxEngine,
  now,
});

/**
 * What every checkout write shares, merchant and buyer side alike: locking the session, applying
 * an edit through the draft rules, reading it back and recording its webhook event.
 */
export function createCheckoutSessions(deps: Deps, taxEngine: TaxEngine, processorMetadata: Readonly<Record<string, string>> = {}) {
  const urls = { checkoutBaseUrl: deps.config.checkoutBaseUrl };

  async function organizationOf(db: Executor, organizationId: string): Promise<OrganizationRow> {
    const organization = await findOrganization(db, organizationId, null);
    if (!organization) throw new ResourceNotFound();
    return organization;
  }

  const view = (full: CheckoutWithRelations): Checkout => toCheckout(full, urls);

  const eventOf = (full: CheckoutWithRelations, type: WebhookEventType): PublishedCheckout & { event: WebhookEvent } => {
    const checkout = view(full);
    return { full, checkout, event: { organizationId: full.organization_id, type, data: checkout, now: deps.now() } };
  };

  return {
    urls,
    taxEngine,
    /** What a new session's `payment_processor_metadata` starts with (Stripe's publishable key). */
    processorMetadata,
    organizationOf,
    view,

    async lock(db: Executor, where: CheckoutLocator, allowed: OrganizationScope): Promise<CheckoutRow> {
      const row = await findCheckoutForUpdate(db, where, allowed);
      if (!row) throw new ResourceNotFound();
      return row;
    },

    /**
     * Applies an edit to a locked session and stores it; the caller publishes. `organization`: the
     * session's, when the caller has already read it in this transaction (saves the read). Answers
     * the session as it now stands: its products as read for the edit (a session's products never
     * change after it is created), its discount read back when it has one (an edit may set it).
     */
    async edit(
      db: Executor,
      row: CheckoutRow,
      changes: CheckoutChanges,
      side: "merchant" | "buyer",
      options: { confirming?: boolean; organization?: OrganizationRow } = {},
    ): Promise<CheckoutWithRelations> {
      const organization = options.organization ?? (await organizationOf(db, row.organization_id));
      const now = deps.now();
      const products = await findCheckoutProducts(db, row.id);
      const { draft, priced } = await applyChanges(draftOf(row), changes, {
        ...editTerms(db, organization, taxEngine, now),
        products,
        side,
        creating: false,
        confirming: options.confirming,
      });
      const stored = await updateCheckout(db, row.id, { ...draftColumns(draft, priced), modified_at: now });
      if (!stored.discount_id) return { ...stored, products, discount: null };
      const full = await findCheckoutWithRelations(db, { id: row.id }, null);
      if (!full) throw new ResourceNotFound();
      return full;
    },

    /**
     * Reads the session back as the API shows it and records the webhook event in the same
     * transaction; `current` is the session as it now stands when the caller already has it (a
     * flow that read its relations and wrote only its own row), which saves the read. `jobs`, other
     * jobs of the same change, are added with the event (one statement).
     */
    async publish(
      db: Executor,
      id: string,
      type: WebhookEventType,
      current?: CheckoutWithRelations,
      jobs: readonly JobSpec[] = [],
    ): Promise<PublishedCheckout> {
      const full = current ?? (await findCheckoutWithRelations(db, { id }, null));
      if (!full) throw new ResourceNotFound();
      const { event, ...published } = eventOf(full, type);
      await recordWebhookEvents(db, [event], jobs);
      return published;
    },

    /** The session as it now stands, shown as the API shows it, and its event: for a flow that records it with others. */
    eventOf,
  };
}
export type CheckoutSessions = ReturnType<typeof createCheckoutSessions>;

/** Which organization a new session belongs to: the token's, or for the owner the first product's. */
async function owningOrganization(db: Executor, productIds: readonly string[], allowed: OrganizationScope): Promise<string> {
  if (allowed !== null) return allowed[0];
  const organizationId = await findProductOrganization(db, productIds[0] ?? "");
  if (!organizationId) throw new RequestValidationError([fieldIssue(["body", "products", 0], "Product does not exist.", productIds[0])]);
  return organizationId;
}

/** What the merchant's side of sessions runs on. */
interface CheckoutContext {
  deps: Deps;
  sessions: CheckoutSessions;
}

/** Reading never changes status: expiry is the scheduled job's business. */
async function getCheckout(ctx: CheckoutContext, id: string, allowed: OrganizationScope): Promise<Checkout> {
  const row = await findCheckoutWithRelations(ctx.deps.db, { id }, allowed);
  if (!row) throw new ResourceNotFound();
  return ctx.sessions.view(row);
}

async function listCheckoutPage(ctx: CheckoutContext, query: CheckoutListQuery, allowed: OrganizationScope): Promise<Page<Checkout>> {
  const filters: CheckoutListFilters = {
    organizationIds: asList(query.organization_id),
    productIds: asList(query.product_id),
    customerIds: asList(query.customer_id),
    externalCustomerIds: asList(query.external_customer_id),
    statuses: asList(query.status),
    emailQuery: query.query?.trim() || null,
  };
  const sorting = parseSorting(query.sorting);
  const { readDb } = ctx.deps;
  return paginate(
    query,
    () => countCheckouts(readDb, filters, allowed),
    async (offset, limit) => (await listCheckouts(readDb, filters, allowed, sorting, offset, limit)).map(ctx.sessions.view),
  );
}

/**
 * What a new session is opened over: its products (each offerable, listed once) and its preset
 * customer; ad-hoc prices and a subscription to upgrade are refused.
 */
async function sessionSubjects(
  trx: Executor,
  organizationId: string,
  input: CheckoutCreate,
): Promise<{ products: ProductWithRelationsJson[]; customer: CustomerRow | null }> {
  const found = await findProductsWithRelations(trx, organizationId, input.products);
  const issues: ValidationIssue[] = [];
  input.products.forEach((id, index) => {
    const product = found.find((p) => p.id === id);
    if (!product || product.is_archived) issues.push(fieldIssue(["body", "products", index], "Product does not exist.", id));
    else if (input.products.indexOf(id) !== index) issues.push(fieldIssue(["body", "products", index], "Product is listed twice.", id));
  });
  if (input.prices)
    issues.push(fieldIssue(["body", "prices"], "Ad-hoc prices are not supported; the products' catalog prices are used.", input.prices));
  if (input.subscription_id) issues.push(fieldIssue(["body", "subscription_id"], "Subscription does not exist.", input.subscription_id));
  let customer: CustomerRow | null = null;
  if (input.customer_id) {
    customer = (await findLiveCustomer(trx, organizationId, { id: input.customer_id })) ?? null;
    if (!customer) issues.push(fieldIssue(["body", "customer_id"], "Customer does not exist.", input.customer_id));
  } else if (input.external_customer_id) {
    customer = (await findLiveCustomer(trx, organizationId, { externalId: input.external_customer_id })) ?? null;
  }
  if (issues.length) throw new RequestValidationError(issues);
  return { products: input.products.map((id) => found.find((p) => p.id === id)!), customer };
}

/** The session's currency: the one asked for, else the organization's when the first product has it, else that product's first. */
function sessionCurrency(input: CheckoutCreate, organization: OrganizationRow, products: readonly ProductWithRelationsJson[]): string {
  const firstPrices = products[0]?.prices ?? [];
  const currency =
    input.currency ??
    (firstPrices.some((p) => p.price_currency === organization.default_presentment_currency)
      ? organization.default_presentment_currency
      : (firstPrices[0]?.price_currency ?? organization.default_presentment_currency));
  const missing = products.findIndex((p) => !p.prices.some((price) => price.price_currency === currency));
  if (missing >= 0) {
    throw new RequestValidationError([
      fieldIssue(["body", "products", missing], `Product has no price in ${currency.toUpperCase()}.`, input.products[missing]),
    ]);
  }
  return currency;
}

/**
 * Opens a session: validated, priced and taxed, its expiry scheduled and `checkout.created`
 * recorded. A checkout link opens one with `prefill`: the visitor's invalid values are dropped.
 */
async function createCheckout(
  ctx: CheckoutContext,
  input: CheckoutCreate,
  allowed: OrganizationScope,
  options: { prefill?: boolean },
): Promise<Checkout> {
  const { deps, sessions } = ctx;
  return deps.db.transaction().execute(async (trx) => {
    const organizationId = await owningOrganization(trx, input.products, allowed);
    const organization = await sessions.organizationOf(trx, organizationId);
    const { products, customer } = await sessionSubjects(trx, organizationId, input);
    const currency = sessionCurrency(input, organization, products);
    const now = deps.now();
    const { prices: _adHoc, products: _ids, customer_id: _customer, subscription_id: _subscription, ...changes } = input;
    const { draft, priced } = await applyChanges(blankDraft(organizationId, currency, input, customer), changes, {
      ...editTerms(trx, organization, sessions.taxEngine, now),
      products,
      side: "merchant",
      creating: true,
      prefill: options.prefill,
    });
    const row = await insertCheckout(
      trx,
      {
        ...draftColumns(draft, priced),
        organization_id: organizationId,
        client_secret: generateToken(TokenPrefix.checkoutClientSecret),
        payment_processor_metadata: JSON.stringify(sessions.processorMetadata),
        expires_at: new Date(now.getTime() + deps.config.checkoutTtlSeconds * 1000),
        created_at: now,
      },
      input.products,
    );
    await scheduleCheckoutExpiry(trx, row.id, row.expires_at);
    return (await sessions.publish(trx, row.id, "checkout.created")).checkout;
  });
}

async function updateOpenCheckout(ctx: CheckoutContext, id: string, input: CheckoutUpdate, allowed: OrganizationScope): Promise<Checkout> {
  const { deps, sessions } = ctx;
  return deps.db.transaction().execute(async (trx) => {
    const row = await sessions.lock(trx, { id }, allowed);
    if (row.status !== "open" || row.expires_at <= deps.now()) throw new NotOpenCheckout();
    const edited = await sessions.edit(trx, row, input, "merchant");
    return (await sessions.publish(trx, id, "checkout.updated", edited)).checkout;
  });
}

/** The merchant's side of checkout sessions, behind an access token: the one way to open a session. */
export function createCheckoutService(deps: Deps, sessions: CheckoutSessions) {
  const ctx: CheckoutContext = { deps, sessions };
  return {
    get: (id: string, allowed: OrganizationScope) => getCheckout(ctx, id, allowed),
    list: (query: CheckoutListQuery, allowed: OrganizationScope) => listCheckoutPage(ctx, query, allowed),
    create: (input: CheckoutCreate, allowed: OrganizationScope, options: { prefill?: boolean } = {}) =>
      createCheckout(ctx, input, allowed, options),
    update: (id: string, input: CheckoutUpdate, allowed: OrganizationScope) => updateOpenCheckout(ctx, id, input, allowed),
  };
}
export type CheckoutService = ReturnType<typeof createCheckoutService>;
