import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import { RequestValidationError, ResourceNotFound, type ValidationIssue } from "../../kit/errors.ts";
import { asList } from "../../kit/pagination.ts";
import { TokenPrefix, generateToken } from "../../kit/tokens.ts";
import { findLiveCustomer } from "../customers/customer-links.repository.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { rateTableTaxEngine, type TaxEngine } from "../tax/tax.engine.ts";
import { draftColumns } from "./checkouts.drafts.ts";
import { applyChanges, type SessionDraft } from "./checkouts.editor.ts";
import type { CheckoutCreate, CheckoutListQuery, CheckoutUpdate } from "./checkouts.inputs.ts";
import { toCheckout } from "./checkouts.mapper.ts";
import { findCheckoutWithRelations, findProductsWithRelations, insertCheckout, listCheckouts, type CheckoutSortKey } from "./checkouts.repository.ts";
import type { Checkout } from "./checkouts.schemas.ts";
import { createCheckoutStore } from "./checkouts.store.ts";
import { NotOpenCheckout } from "./checkouts.errors.ts";

export const CHECKOUT_EXPIRE_TASK = "checkout.expire";

const issueAt = (loc: (string | number)[], msg: string, input: unknown): ValidationIssue => ({ loc, msg, type: "value_error", input });

/** Which organization a new session belongs to: the token's, or for the owner the first product's. */
async function owningOrganization(db: Executor, productIds: readonly string[], allowed: OrganizationScope): Promise<string> {
  if (allowed !== null) return allowed[0];
  const first = await db.selectFrom("products").select("organization_id").where("id", "=", productIds[0] ?? "").executeTakeFirst();
  if (!first) throw new RequestValidationError([issueAt(["body", "products", 0], "Product does not exist.", productIds[0])]);
  return first.organization_id;
}

function blankDraft(organizationId: string, currency: string, input: CheckoutCreate, customer: CustomerRow | null): SessionDraft {
  const hasBusinessDetails = Boolean(customer?.billing_name && (customer.billing_address?.line1 || customer.billing_address?.city));
  return {
    organization_id: organizationId,
    currency,
    product_id: input.products[0] ?? null,
    product_price_id: null,
    amount: 0,
    seats: input.seats ?? null,
    min_seats: input.min_seats ?? null,
    max_seats: input.max_seats ?? null,
    discount_id: null,
    allow_discount_codes: true,
    require_billing_address: false,
    allow_trial: true,
    trial_interval: null,
    trial_interval_count: null,
    customer_id: customer?.id ?? null,
    external_customer_id: input.external_customer_id ?? customer?.external_id ?? null,
    is_business_customer: input.is_business_customer ?? hasBusinessDetails,
    customer_name: customer?.name ?? null,
    customer_email: customer?.email ?? null,
    customer_ip_address: null,
    customer_billing_name: customer?.billing_name ?? null,
    customer_billing_address: customer?.billing_address ?? null,
    customer_tax_id: customer?.tax_id?.[0] ?? null,
    locale: customer?.locale ?? null,
    payment_method_type: null,
    success_url: null,
    return_url: null,
    embed_origin: null,
    metadata: {},
    customer_metadata: {},
    // No custom fields are attached to products yet, so no value has a field to belong to.
    custom_field_data: {},
    subscription_id: null,
  };
}

export function createCheckoutService(deps: Deps, taxEngine: TaxEngine = rateTableTaxEngine) {
  const store = createCheckoutStore(deps, taxEngine);
  const { urls } = store;

  return {
    /** Reading never changes status: expiry is the scheduled job's business. */
    async get(id: string, allowed: OrganizationScope): Promise<Checkout> {
      const row = await findCheckoutWithRelations(deps.db, { id }, allowed);
      if (!row) throw new ResourceNotFound();
      return toCheckout(row, urls);
    },

    async list(query: CheckoutListQuery, allowed: OrganizationScope) {
      const limit = query.limit ?? 10;
      const page = query.page ?? 1;
      const sorting = (query.sorting?.length ? query.sorting : ["-created_at"]).map((key) => ({
        key: key.replace(/^-/, "") as CheckoutSortKey,
        descending: key.startsWith("-"),
      }));
      const { rows, total } = await listCheckouts(
        deps.db,
        {
          organizationIds: asList(query.organization_id),
          productIds: asList(query.product_id),
          customerIds: asList(query.customer_id),
          externalCustomerIds: asList(query.external_customer_id),
          statuses: asList(query.status),
          emailQuery: query.query?.trim() || null,
        },
        allowed,
        { sorting, offset: (page - 1) * limit, limit },
      );
      return { items: rows.map((row) => toCheckout(row, urls)), pagination: { total_count: total, max_page: Math.ceil(total / limit) } };
    },

    async create(input: CheckoutCreate, allowed: OrganizationScope): Promise<Checkout> {
      return deps.db.transaction().execute(async (trx) => {
        const organizationId = await owningOrganization(trx, input.products, allowed);
        const organization = await store.organizationOf(trx, organizationId);
        const found = await findProductsWithRelations(trx, organizationId, input.products);
        const issues: ValidationIssue[] = [];
        input.products.forEach((id, index) => {
          const product = found.find((p) => p.id === id);
          if (!product || product.is_archived) issues.push(issueAt(["body", "products", index], "Product does not exist.", id));
          else if (input.products.indexOf(id) !== index) issues.push(issueAt(["body", "products", index], "Product is listed twice.", id));
        });
        if (input.prices) issues.push(issueAt(["body", "prices"], "Ad-hoc prices are not supported; the products' catalog prices are used.", input.prices));
        if (input.subscription_id) issues.push(issueAt(["body", "subscription_id"], "Subscription does not exist.", input.subscription_id));
        let customer: CustomerRow | null = null;
        if (input.customer_id) {
          customer = (await findLiveCustomer(trx, organizationId, { id: input.customer_id })) ?? null;
          if (!customer) issues.push(issueAt(["body", "customer_id"], "Customer does not exist.", input.customer_id));
        } else if (input.external_customer_id) {
          customer = (await findLiveCustomer(trx, organizationId, { externalId: input.external_customer_id })) ?? null;
        }
        if (issues.length) throw new RequestValidationError(issues);
        const products = input.products.map((id) => found.find((p) => p.id === id)!);
        const firstPrices = products[0]?.prices ?? [];
        const currency =
          input.currency ??
          (firstPrices.some((p) => p.price_currency === organization.default_presentment_currency)
            ? organization.default_presentment_currency
            : (firstPrices[0]?.price_currency ?? organization.default_presentment_currency));
        const missing = products.findIndex((p) => !p.prices.some((price) => price.price_currency === currency));
        if (missing >= 0) throw new RequestValidationError([issueAt(["body", "products", missing], `Product has no price in ${currency.toUpperCase()}.`, input.products[missing])]);

        const now = deps.now();
        const { prices: _adHoc, products: _ids, customer_id: _customer, subscription_id: _subscription, ...changes } = input;
        const { draft, priced } = await applyChanges(blankDraft(organizationId, currency, input, customer), changes, {
          db: trx,
          products,
          defaultTaxBehavior: organization.default_tax_behavior,
          taxEngine,
          now,
          side: "merchant",
          creating: true,
        });
        const row = await insertCheckout(
          trx,
          {
            ...draftColumns(draft, priced),
            organization_id: organizationId,
            client_secret: generateToken(TokenPrefix.checkoutClientSecret),
            expires_at: new Date(now.getTime() + deps.config.checkoutTtlSeconds * 1000),
            created_at: now,
          },
          input.products,
        );
        await enqueueJob(trx, CHECKOUT_EXPIRE_TASK, { checkoutId: row.id }, { runAt: row.expires_at, jobKey: `${CHECKOUT_EXPIRE_TASK}:${row.id}` });
        return (await store.publish(trx, row.id, "checkout.created")).checkout;
      });
    },

    async update(id: string, input: CheckoutUpdate, allowed: OrganizationScope): Promise<Checkout> {
      return deps.db.transaction().execute(async (trx) => {
        const row = await store.lock(trx, { id }, allowed);
        if (row.status !== "open" || row.expires_at <= deps.now()) throw new NotOpenCheckout();
        await store.edit(trx, row, input, "merchant");
        return (await store.publish(trx, id, "checkout.updated")).checkout;
      });
    },
  };
}
export type CheckoutService = ReturnType<typeof createCheckoutService>;
