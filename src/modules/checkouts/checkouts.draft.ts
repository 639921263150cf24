import type { Insertable } from "kysely";
import { isIP } from "node:net";
import type { Executor } from "../../db/database.ts";
import { toStoredAddress, type StoredAddress } from "../../schema/address.ts";
import { RequestValidationError, fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { checkCustomFieldData } from "../custom-fields/custom-fields.steps.ts";
import { toAttachedCustomField } from "../custom-fields/custom-fields.mapper.ts";
import type { DiscountWithProducts } from "../discounts/discounts.steps.ts";
import type { ProductPriceJson, ProductWithRelationsJson } from "../products/products.mapper.ts";
import { checkTaxId, invalidTaxIdIssue, taxIdNeedsCountryIssue } from "../../adapters/tax-engine/tax-id.ts";
import type { TaxEngine, TaxRegistrationFacts } from "../../adapters/tax-engine/tax.engine.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import type { CheckoutChanges, CheckoutCreate } from "./checkout-inputs.schemas.ts";
import { resolveDiscount } from "./checkouts.discount.ts";
import { priceCheckout, pricesIn, type PricedCheckout } from "./checkouts.pricing.ts";
import type { CheckoutRow, CheckoutsTable } from "./checkouts.table.ts";

/** The columns no edit sets: identity, lifecycle, and the amounts that pricing derives. */
const NON_EDITABLE_COLUMNS = [
  "id",
  "created_at",
  "modified_at",
  "status",
  "client_secret",
  "expires_at",
  "opened_at",
  "payment_processor_metadata",
  "discount_amount",
  "net_amount",
  "tax_amount",
  "tax_behavior",
  "tax_rate_basis_points",
  "tax_reverse_charge",
  "trial_end",
] as const;

/** The editable state of a session: what create, update, client update and confirm all change. */
export type SessionDraft = Omit<CheckoutRow, (typeof NON_EDITABLE_COLUMNS)[number]>;

export interface EditContext {
  db: Executor;
  products: ProductWithRelationsJson[];
  defaultTaxBehavior: string;
  /** The organization's tax registrations: tax is collected only from buyers they cover. */
  taxRegistrations: readonly TaxRegistrationFacts[];
  /** The organization's country of establishment (its legal address's). */
  sellerCountry: string | null;
  taxEngine: TaxEngine;
  now: Date;
  /** Which side edits: the merchant may set the discount by id, the buyer only by code. */
  side: "merchant" | "buyer";
  /** The draft is new: a preset address may force the full address. */
  creating: boolean;
  /** Confirming: every required custom field must be answered, and the values given replace the stored ones. */
  confirming?: boolean;
  /** Values a checkout link's visitor put in its URL: an amount or a discount that does not apply is dropped, not refused. */
  prefill?: boolean;
}

type DraftColumns = Omit<Insertable<CheckoutsTable>, "organization_id" | "client_secret" | "expires_at" | "currency">;

/** A draft and its prices as column values (JSON columns as text). */
export function draftColumns(draft: SessionDraft, priced: PricedCheckout): DraftColumns & { currency: string } {
  return {
    ...draft,
    ...priced,
    customer_billing_address: draft.customer_billing_address ? JSON.stringify(draft.customer_billing_address) : null,
    metadata: JSON.stringify(draft.metadata),
    customer_metadata: JSON.stringify(draft.customer_metadata),
    custom_field_data: JSON.stringify(draft.custom_field_data),
  };
}

/** The editable part of a stored session. */
export function draftOf(row: CheckoutRow): SessionDraft {
  const draft: Partial<CheckoutRow> = { ...row };
  for (const column of NON_EDITABLE_COLUMNS) delete draft[column];
  return draft as SessionDraft;
}

/** A new session's draft: the preset customer's details, everything else at its default. */
export function blankDraft(organizationId: string, currency: string, input: CheckoutCreate, customer: CustomerRow | null): SessionDraft {
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
    // Filled by the edit that creates the session, against the selected product's fields.
    custom_field_data: {},
    subscription_id: null,
  };
}

/** A preset address with more than a country (or a state outside US/CA) asks for the full address. */
const isDetailedAddress = (address: StoredAddress): boolean =>
  Boolean(
    address.line1 || address.line2 || address.city || address.postal_code || (address.state && !["US", "CA"].includes(address.country)),
  );

function assignPlain(draft: SessionDraft, changes: CheckoutChanges): void {
  const nullableText = [
    "customer_name",
    "customer_billing_name",
    "locale",
    "success_url",
    "return_url",
    "embed_origin",
    "payment_method_type",
    "customer_ip_address",
  ] as const;
  for (const key of nullableText) {
    const value = changes[key];
    if (value !== undefined) draft[key] = value === null ? null : value.trim() || null;
  }
  if (changes.customer_email !== undefined) draft.customer_email = changes.customer_email?.trim() ?? null;
  for (const key of ["is_business_customer", "allow_discount_codes", "require_billing_address"] as const) {
    const value = changes[key];
    if (value !== undefined && value !== null) draft[key] = value;
  }
  if (changes.allow_trial !== undefined && changes.allow_trial !== null) draft.allow_trial = changes.allow_trial;
  if (changes.trial_interval !== undefined) draft.trial_interval = changes.trial_interval;
  if (changes.trial_interval_count !== undefined) draft.trial_interval_count = changes.trial_interval_count;
  if (changes.metadata !== undefined) draft.metadata = changes.metadata;
  if (changes.customer_metadata !== undefined && changes.customer_metadata !== null) draft.customer_metadata = changes.customer_metadata;
}

/** The selected product and its prices in the session's currency, after the edit's currency, price or product. */
function selectProduct(draft: SessionDraft, changes: CheckoutChanges, ctx: EditContext, issues: ValidationIssue[]) {
  if (changes.currency) draft.currency = changes.currency;
  if (changes.product_price_id) {
    const owner = ctx.products.find((p) => p.prices.some((price) => price.id === changes.product_price_id));
    if (owner) {
      draft.product_id = owner.id;
      draft.product_price_id = changes.product_price_id;
    } else issues.push(fieldIssue(["body", "product_price_id"], "Price is not available in this checkout.", changes.product_price_id));
  }
  if (changes.product_id) {
    if (ctx.products.some((p) => p.id === changes.product_id)) draft.product_id = changes.product_id;
    else issues.push(fieldIssue(["body", "product_id"], "Product is not available in this checkout.", changes.product_id));
  }
  const product = ctx.products.find((p) => p.id === draft.product_id) ?? null;
  const prices = pricesIn(product, draft.currency);
  if (product && prices.length === 0)
    issues.push(
      fieldIssue(
        ["body", changes.currency ? "currency" : "product_id"],
        `Product has no price in ${draft.currency.toUpperCase()}.`,
        changes.currency ?? draft.product_id,
      ),
    );
  return { product, prices };
}

/** The buyer's amount for a custom price: the one given when in range, else the one kept (for the same product). */
function customAmount(
  draft: SessionDraft,
  changes: CheckoutChanges,
  ctx: EditContext,
  selection: { prices: ProductPriceJson[]; productChanged: boolean },
  issues: ValidationIssue[],
): number | null {
  const customPrice = selection.prices.find((p) => p.amount_type === "custom");
  if (!customPrice) return null;
  const kept = !selection.productChanged && !ctx.creating ? draft.amount : null;
  if (changes.amount === undefined || changes.amount === null) return kept;
  const min = customPrice.minimum_amount ?? 0;
  const max = customPrice.maximum_amount;
  if (changes.amount >= min && (max === null || changes.amount <= max)) return changes.amount;
  if (!ctx.prefill)
    issues.push(fieldIssue(["body", "amount"], `Amount must be between ${min} and ${max ?? "any amount"}.`, changes.amount));
  return kept;
}

/** The seat count of a seat-based price, within the session's bounds and the price's tiers; none otherwise. */
function chooseSeats(draft: SessionDraft, changes: CheckoutChanges, prices: ProductPriceJson[], issues: ValidationIssue[]): void {
  const seatPrice = prices.find((p) => p.amount_type === "seat_based");
  if (draft.min_seats !== null && draft.max_seats !== null && draft.min_seats > draft.max_seats) {
    issues.push(fieldIssue(["body", "min_seats"], "Minimum seats cannot exceed maximum seats.", draft.min_seats));
  }
  if (!seatPrice) {
    draft.seats = null;
    return;
  }
  const tiers = seatPrice.seat_tiers ?? [];
  const low = Math.max(draft.min_seats ?? 1, tiers[0]?.min_seats ?? 1);
  const tierMax = tiers.length ? (tiers[tiers.length - 1]?.max_seats ?? null) : null;
  const high = Math.min(draft.max_seats ?? Number.POSITIVE_INFINITY, tierMax ?? Number.POSITIVE_INFINITY);
  const seats = changes.seats ?? draft.seats ?? low;
  if (seats < low || seats > high)
    issues.push(fieldIssue(["body", "seats"], `Seats must be between ${low} and ${Number.isFinite(high) ? high : "any number"}.`, seats));
  else draft.seats = seats;
}

/** The billing address and tax ID, the number checked against the address's country. */
function applyBillingDetails(draft: SessionDraft, changes: CheckoutChanges, ctx: EditContext, issues: ValidationIssue[]): void {
  if (changes.customer_billing_address !== undefined) {
    draft.customer_billing_address = changes.customer_billing_address ? toStoredAddress(changes.customer_billing_address) : null;
    if (ctx.creating && draft.customer_billing_address && isDetailedAddress(draft.customer_billing_address))
      draft.require_billing_address = true;
  }
  if (changes.customer_tax_id !== undefined) draft.customer_tax_id = changes.customer_tax_id?.trim() || null;
  if (draft.customer_tax_id !== null && (changes.customer_tax_id !== undefined || changes.customer_billing_address !== undefined)) {
    // An unverified number (no validator for the country) stays on the session as typed: it is
    // never reverse-charged and never copied to the customer or the order.
    const country = draft.customer_billing_address?.country;
    const checked = country ? checkTaxId(draft.customer_tax_id, country) : null;
    if (!country) issues.push(taxIdNeedsCountryIssue(["body", "customer_billing_address"]));
    else if (checked) draft.customer_tax_id = checked.value;
    else issues.push(invalidTaxIdIssue(["body", "customer_tax_id"], changes.customer_tax_id ?? draft.customer_tax_id));
  }
}

/**
 * Applies one edit to a draft and prices the result. Every rule failure is collected and raised
 * together as a 422 with the field's location; nothing is written by this function.
 */
export async function applyChanges(
  current: SessionDraft,
  changes: CheckoutChanges,
  ctx: EditContext,
): Promise<{ draft: SessionDraft; priced: PricedCheckout; discount: DiscountWithProducts | null }> {
  const draft: SessionDraft = { ...current };
  const issues: ValidationIssue[] = [];
  assignPlain(draft, changes);
  if (draft.customer_ip_address !== null && isIP(draft.customer_ip_address) === 0) {
    issues.push(
      fieldIssue(["body", "customer_ip_address"], "value is not a valid IPv4 or IPv6 address", draft.customer_ip_address, "ip_any_address"),
    );
  }
  const previousProductId = draft.product_id;
  const { product, prices } = selectProduct(draft, changes, ctx, issues);
  const productChanged = draft.product_id !== previousProductId;
  if (productChanged || !prices.some((p) => p.id === draft.product_price_id)) draft.product_price_id = prices[0]?.id ?? null;
  const amount = customAmount(draft, changes, ctx, { prices, productChanged }, issues);
  chooseSeats(draft, changes, prices, issues);
  if (changes.custom_field_data !== undefined || ctx.confirming) {
    const attached = (product?.attached_custom_fields ?? []).map(toAttachedCustomField);
    const checked = checkCustomFieldData(attached, changes.custom_field_data ?? {}, {
      complete: ctx.confirming === true,
      loc: ["body", "custom_field_data"],
    });
    issues.push(...checked.issues);
    draft.custom_field_data = ctx.confirming ? checked.data : { ...draft.custom_field_data, ...checked.data };
  }
  const discount = await resolveDiscount(draft, changes, ctx, productChanged || Boolean(changes.currency), issues);
  draft.discount_id = discount?.id ?? null;
  applyBillingDetails(draft, changes, ctx, issues);
  if (issues.length) throw new RequestValidationError(issues);

  const priced = priceCheckout(
    {
      product,
      currency: draft.currency,
      customAmount: amount,
      seats: draft.seats,
      discount,
      allowTrial: draft.allow_trial,
      trialInterval: draft.trial_interval,
      trialIntervalCount: draft.trial_interval_count,
      address: draft.customer_billing_address,
      isBusiness: draft.is_business_customer,
      taxId: draft.customer_tax_id,
      defaultTaxBehavior: ctx.defaultTaxBehavior,
      taxRegistrations: ctx.taxRegistrations,
      sellerCountry: ctx.sellerCountry,
      now: ctx.now,
    },
    ctx.taxEngine,
  );
  draft.amount = priced.amount;
  return { draft, priced, discount };
}
