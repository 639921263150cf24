import type { TaxEngine, TaxResult } from "../adapters/tax-engine/tax.engine.ts";
import type { Deps } from "../context.ts";
import type { Principal } from "../http/auth.ts";
import { RequestValidationError, fieldIssue, valueIssue, type ValidationIssue } from "../http/errors.ts";
import { recordWebhookEvent } from "../jobs/webhook-outbox.ts";
import { toAttachedCustomField } from "../modules/custom-fields/custom-fields.mapper.ts";
import { checkCustomFieldData } from "../modules/custom-fields/custom-fields.steps.ts";
import { findLiveCustomer } from "../modules/customers/customers.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import { OffSessionChargesNotEnabled, OrganizationNotReadyForPayments } from "../modules/orders/orders.errors.ts";
import type { Order, OrderCreate } from "../modules/orders/orders.schemas.ts";
import { readOrder, writeOrder } from "../modules/orders/orders.steps.ts";
import { targetOrganization } from "../modules/organizations/organizations.steps.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import type { ProductPriceJson, ProductWithRelations } from "../modules/products/products.mapper.ts";
import { findProductWithRelations } from "../modules/products/products.steps.ts";

/** Bounds of an order's amount: Stripe's smallest USD charge, and the largest amount the catalog accepts. */
export const ORDER_MINIMUM_AMOUNT = 50;
const ORDER_MAXIMUM_AMOUNT = 99_999_999;

/** The organization may make and charge draft orders (a feature flag the instance owner turns on). */
export function checkOffSessionCharges(organization: OrganizationRow): void {
  if (organization.feature_settings.off_session_charges_enabled !== true) throw new OffSessionChargesNotEnabled(organization.id);
}

/** The review statuses in which an organization still takes payments: active, or under a review that has not ended. */
const PAYMENT_READY_STATUSES: ReadonlySet<OrganizationRow["status"]> = new Set(["active", "review", "snoozed"]);

/** A charge needs an organization whose review lets it take payments (403 otherwise). */
export function checkReadyForPayments(organization: OrganizationRow): void {
  if (!PAYMENT_READY_STATUSES.has(organization.status)) throw new OrganizationNotReadyForPayments(organization.id);
}

/** One-time, with static fixed (or free) prices only: a product whose amount the API can state. */
function productProblem(product: ProductWithRelations): string | null {
  if (product.recurring_interval !== null) return "Only one-time products can be charged with an order.";
  if (product.prices.some((price) => price.amount_type !== "fixed" && price.amount_type !== "free"))
    return "Only products with fixed or free prices can be charged with an order.";
  return null;
}

/** The price in the currency and the amount charged, or the issues that refuse them. */
function chargedAmount(
  body: OrderCreate,
  product: ProductWithRelations,
  currency: string,
  issues: ValidationIssue[],
): { price: ProductPriceJson; amount: number } | null {
  const price = product.prices.find((candidate) => candidate.price_currency === currency);
  if (!price) {
    issues.push(valueIssue(["body", "currency"], `The product has no price in ${currency}.`, currency));
    return null;
  }
  const amount = body.amount ?? price.price_amount ?? 0;
  const loc = ["body", "amount"];
  if (amount > 0 && amount < ORDER_MINIMUM_AMOUNT) {
    const msg = `Input should be greater than or equal to ${ORDER_MINIMUM_AMOUNT}`;
    issues.push(fieldIssue(loc, msg, amount, "greater_than_equal", { ge: ORDER_MINIMUM_AMOUNT }));
  } else if (amount > ORDER_MAXIMUM_AMOUNT) {
    const msg = `Input should be less than or equal to ${ORDER_MAXIMUM_AMOUNT}`;
    issues.push(fieldIssue(loc, msg, amount, "less_than_equal", { le: ORDER_MAXIMUM_AMOUNT }));
  }
  return { price, amount };
}

/** The tax at the customer's billing address, computed now and kept on the draft; null when none is due. */
function frozenTax(
  taxEngine: TaxEngine,
  parties: { organization: OrganizationRow; customer: CustomerRow; product: ProductWithRelations },
  charge: { price: ProductPriceJson; amount: number; currency: string },
  now: Date,
  issues: ValidationIssue[],
): TaxResult | null {
  const { organization, customer, product } = parties;
  if (!product.is_tax_applicable || charge.amount === 0) return null;
  const address = customer.billing_address;
  if (!address) {
    issues.push(valueIssue(["body", "customer_id"], "The customer needs a billing address to compute the order's tax.", customer.id));
    return null;
  }
  return taxEngine.calculate({
    amount: charge.amount,
    currency: charge.currency,
    behavior: (charge.price.tax_behavior ?? organization.default_tax_behavior) === "inclusive" ? "inclusive" : "exclusive",
    country: address.country,
    state: address.state,
    isBusiness: customer.tax_id !== null,
    taxId: customer.tax_id?.[0] ?? null,
    registrations: organization.tax_registrations,
    sellerCountry: organization.legal_address?.country ?? null,
    at: now,
  });
}

/**
 * `POST /v1/orders/`: a draft order for one of the organization's customers and one-time products,
 * its tax computed now and frozen, without an invoice number (assigned when finalized). Sends `order.created`.
 */
export async function createDraftOrder(deps: Deps, taxEngine: TaxEngine, body: OrderCreate, principal: Principal): Promise<Order> {
  return deps.db.transaction().execute(async (trx) => {
    const organization = await targetOrganization(trx, principal, body.organization_id);
    checkOffSessionCharges(organization);
    const now = deps.now();
    const issues: ValidationIssue[] = [];
    const customer = await findLiveCustomer(trx, organization.id, { id: body.customer_id });
    if (!customer) issues.push(valueIssue(["body", "customer_id"], "Customer does not exist.", body.customer_id));
    const product = await findProductWithRelations(trx, body.product_id, [organization.id]);
    const problem = product ? productProblem(product) : "Product does not exist.";
    if (problem) issues.push(valueIssue(["body", "product_id"], problem, body.product_id));
    if (!customer || !product || problem) throw new RequestValidationError(issues);

    const currency = body.currency ?? organization.default_presentment_currency;
    const charge = chargedAmount(body, product, currency, issues);
    const tax = charge ? frozenTax(taxEngine, { organization, customer, product }, { ...charge, currency }, now, issues) : null;
    // Values are checked against the product's fields, none of them required yet.
    const attached = product.attached_custom_fields.map(toAttachedCustomField);
    const fields = checkCustomFieldData(attached, body.custom_field_data ?? {}, { complete: false, loc: ["body", "custom_field_data"] });
    issues.push(...fields.issues);
    if (issues.length > 0 || !charge) throw new RequestValidationError(issues);

    // An inclusive price already holds its tax: the net is what remains.
    const inclusive = tax !== null && (charge.price.tax_behavior ?? organization.default_tax_behavior) === "inclusive";
    const taxAmount = tax?.amount ?? 0;
    const net = inclusive ? charge.amount - taxAmount : charge.amount;
    const label = body.description ?? product.name;
    const { order } = await writeOrder(trx, {
      organization,
      customer,
      checkoutId: null,
      subscriptionId: null,
      billingReason: "purchase",
      status: "draft",
      product: { id: product.id, name: label },
      lines: [{ priceId: charge.price.id, amount: net, label }],
      amounts: { subtotal: net, discount: 0, net, tax: taxAmount, total: net + taxAmount, currency },
      taxRate: { basisPoints: tax?.basisPoints ?? null, reverseCharge: tax?.reverseCharge ?? false },
      discountId: null,
      billing: { name: customer.billing_name ?? customer.name, address: customer.billing_address, taxId: customer.tax_id },
      seats: null,
      metadata: body.metadata ?? {},
      customFieldData: fields.data,
      paymentReference: null,
      now,
    });
    const created = await readOrder(trx, order);
    await recordWebhookEvent(trx, { organizationId: organization.id, type: "order.created", data: created, now });
    return created;
  });
}
