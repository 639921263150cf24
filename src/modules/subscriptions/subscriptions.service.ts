import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { asList, type Page } from "../../schema/pagination.ts";
import { toSubscription } from "./subscriptions.mapper.ts";
import { subscriptionMeters } from "./subscription-meters.ts";
import * as repo from "./subscriptions.repository.ts";
import type { Subscription, SubscriptionListQuery } from "./subscriptions.schemas.ts";
import type { SubscriptionCreate, SubscriptionExportQuery } from "./subscription-inputs.schemas.ts";
import { DEFAULT_EXPORT_COLUMNS, subscriptionsCsv } from "./subscriptions.export.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { findProductWithRelations } from "../products/products.steps.ts";
import { findLiveCustomer } from "../customers/customers.steps.ts";
import { grantBenefits } from "../benefits/benefits.steps.ts";
import { publishSubscriptionEvents, startSubscription } from "./subscriptions.steps.ts";
import { pageSubscriptions } from "./subscription-pages.ts";

/** `GET /v1/subscriptions/`: the list's filters, each row with its meters. */
async function listSubscriptions(deps: Deps, query: SubscriptionListQuery, allowed: OrganizationScope): Promise<Page<Subscription>> {
  const filter: repo.SubscriptionFilter = {
    allowed,
    organizationIds: asList(query.organization_id),
    productIds: asList(query.product_id),
    customerIds: asList(query.customer_id),
    externalCustomerIds: asList(query.external_customer_id),
    discountIds: asList(query.discount_id),
    active: query.active,
    statuses: asList(query.status),
    cancelAtPeriodEnd: query.cancel_at_period_end,
    cancellationReasons: asList(query.customer_cancellation_reason),
    canceledAtOrAfter: query.canceled_at_after === undefined ? undefined : new Date(query.canceled_at_after),
    canceledAtOrBefore: query.canceled_at_before === undefined ? undefined : new Date(query.canceled_at_before),
    startedAfter: query.started_after === undefined ? undefined : new Date(query.started_after),
    startedBefore: query.started_before === undefined ? undefined : new Date(query.started_before),
    metadata: query.metadata,
  };
  // The meters are computed after the page's snapshot, each in a transaction of its own (their reads lock).
  const page = await pageSubscriptions(deps.readDb, filter, query, async (_trx, rows) => rows);
  const now = deps.now();
  const items: Subscription[] = [];
  for (const row of page.items) {
    items.push(toSubscription(row, await deps.db.transaction().execute((trx) => subscriptionMeters(trx, row, now))));
  }
  return { ...page, items };
}

/** The CSV export: the list's filters, every matching row, the chosen columns in order. */
async function exportSubscriptions(deps: Deps, query: SubscriptionExportQuery, allowed: OrganizationScope): Promise<string> {
  const rows = await repo.exportRows(deps.db, {
    allowed,
    organizationIds: asList(query.organization_id),
    productIds: asList(query.product_id),
    statuses: asList(query.status),
    cancelAtPeriodEnd: query.cancel_at_period_end,
    startedAfter: query.started_after === undefined ? undefined : new Date(query.started_after),
    startedBefore: query.started_before === undefined ? undefined : new Date(query.started_before),
  });
  return subscriptionsCsv(rows, asList(query.columns) ?? DEFAULT_EXPORT_COLUMNS, query.timezone ?? "UTC");
}

/** The product of a created subscription: recurring and free, with the hosted service's refusals in its order. */
async function freeRecurringProduct(trx: Executor, productId: string, allowed: OrganizationScope) {
  const productLoc = ["body", "product_id"];
  const product = await findProductWithRelations(trx, productId, allowed);
  if (!product) throw new RequestValidationError([fieldIssue(productLoc, "Product does not exist.", productId)]);
  if (!product.recurring_interval)
    throw new RequestValidationError([fieldIssue(productLoc, "Product is not a recurring product.", productId)]);
  if (product.prices.some((price) => price.amount_type !== "free"))
    throw new RequestValidationError([
      fieldIssue(productLoc, "Product is not free. The customer should go through a checkout to create a paid subscription.", productId),
    ]);
  return { ...product, recurring_interval: product.recurring_interval };
}

/** The subscriber, by id or external id, in the product's organization. */
async function subscriberOf(trx: Executor, organizationId: string, input: SubscriptionCreate) {
  const customer =
    "customer_id" in input
      ? await findLiveCustomer(trx, organizationId, { id: input.customer_id })
      : await findLiveCustomer(trx, organizationId, { externalId: input.external_customer_id });
  if (customer) return customer;
  const [field, value] = "customer_id" in input ? ["customer_id", input.customer_id] : ["external_customer_id", input.external_customer_id];
  throw new RequestValidationError([fieldIssue(["body", field], "Customer does not exist.", value)]);
}

/**
 * `POST /v1/subscriptions/`: a subscription to a free recurring product, `active` at once, without
 * an order (the hosted service's rule: a paid one goes through a checkout).
 */
async function createFreeSubscription(deps: Deps, input: SubscriptionCreate, allowed: OrganizationScope): Promise<Subscription> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.now();
    const product = await freeRecurringProduct(trx, input.product_id, allowed);
    const customer = await subscriberOf(trx, product.organization_id, input);
    const currency = product.prices[0]?.price_currency ?? "usd";
    const row = await startSubscription(trx, {
      organizationId: product.organization_id,
      customerId: customer.id,
      product: {
        id: product.id,
        recurringInterval: product.recurring_interval,
        recurringIntervalCount: product.recurring_interval_count ?? 1,
      },
      checkoutId: null,
      prices: product.prices.filter((price) => price.price_currency === currency).map((price) => ({ id: price.id, amount: 0 })),
      currency,
      taxBehavior: null,
      amount: 0,
      discountId: null,
      seats: null,
      trialEnd: null,
      metadata: input.metadata ?? {},
      customFieldData: {},
      paymentMethodId: null,
      now,
    });
    await grantBenefits(trx, { customerId: customer.id, orderId: null, subscriptionId: row.id, benefits: product.benefits, now });
    return publishSubscriptionEvents(trx, row, ["subscription.created", "subscription.active", "subscription.updated"], now);
  });
}

async function getSubscription(deps: Deps, id: string, allowed: OrganizationScope): Promise<Subscription> {
  const row = await repo.findSubscriptionEmbedded(deps.db, id, { allowed });
  if (!row) throw new ResourceNotFound();
  return toSubscription(row, await deps.db.transaction().execute((trx) => subscriptionMeters(trx, row, deps.now())));
}

/** The merchant's reads of subscriptions, and the creation of a free one, bound to the application's dependencies. */
export const createSubscriptionService = (deps: Deps) => ({
  list: (query: SubscriptionListQuery, allowed: OrganizationScope) => listSubscriptions(deps, query, allowed),
  export: (query: SubscriptionExportQuery, allowed: OrganizationScope) => exportSubscriptions(deps, query, allowed),
  create: (input: SubscriptionCreate, allowed: OrganizationScope) => createFreeSubscription(deps, input, allowed),
  get: (id: string, allowed: OrganizationScope) => getSubscription(deps, id, allowed),
});
export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
