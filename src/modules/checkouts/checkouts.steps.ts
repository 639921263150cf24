import type { Executor } from "../../db/database.ts";
import { missingIssue, type ValidationIssue } from "../../http/errors.ts";
import { removeJob, type JobSpec } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { parseTaxId, type TaxId } from "../../adapters/tax-engine/tax-id.ts";
import { redeemDiscount, releaseDiscount } from "../discounts/discounts.steps.ts";
import type { ProductWithRelationsJson } from "../products/products.mapper.ts";
import { DiscountRedemptionLimitReached } from "./checkouts.errors.ts";
import { checkoutAmount, pricesIn } from "./checkouts.pricing.ts";
import { findCheckoutWithRelations, updateCheckout, type CheckoutWithRelations } from "./checkouts.repository.ts";
import { scheduleCheckoutExpiry } from "./checkouts.service.ts";
import type { Checkout } from "./checkouts.schemas.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

// The session operations and rules the checkout flows run, inside their own transaction.

export { findCheckoutWithRelations, type CheckoutWithRelations };

/** What confirm needs filled in: the email, the address fields the form requires, a business's name. */
export function missingForConfirm(checkout: Checkout): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (checkout.product_id === null) issues.push(missingIssue(["body", "product_id"]));
  if (!checkout.customer_email) issues.push(missingIssue(["body", "customer_email"]));
  if (checkout.is_business_customer && !checkout.customer_billing_name) issues.push(missingIssue(["body", "customer_billing_name"]));
  const addressNeeded = checkout.is_payment_form_required || checkout.is_business_customer || checkout.require_billing_address;
  const address = checkout.customer_billing_address;
  if (addressNeeded && !address) issues.push(missingIssue(["body", "customer_billing_address"]));
  else if (addressNeeded && address) {
    for (const [field, mode] of Object.entries(checkout.billing_address_fields)) {
      if (mode === "required" && !address[field as keyof typeof address])
        issues.push(missingIssue(["body", "customer_billing_address", field]));
    }
  }
  return issues;
}

/** The buyer's tax ID as customers and orders keep it: `[number, format]`, only when verified. */
export function storedTaxId(checkout: CheckoutWithRelations): TaxId | null {
  const country = checkout.customer_billing_address?.country;
  return checkout.customer_tax_id && country ? parseTaxId(checkout.customer_tax_id, country) : null;
}

/** What a session bought: its product and each of the product's prices in the session's currency. */
export interface CheckoutPurchase {
  product: ProductWithRelationsJson;
  /** In display order; `amount` is what the price charges a period, null for a metered price (billed on usage). */
  prices: { id: string; seatBased: boolean; amount: number | null }[];
  /** A trial starts with nothing charged: the first order of its subscription is for zero. */
  charged: boolean;
}

export function purchaseOf(checkout: CheckoutWithRelations): CheckoutPurchase {
  const product = checkout.products.find((p) => p.id === checkout.product_id);
  if (!product) throw new Error(`checkout ${checkout.id} reached completion without a product`);
  const prices = pricesIn(product, checkout.currency).map((price) => ({
    id: price.id,
    seatBased: price.amount_type === "seat_based",
    amount: price.amount_type === "metered_unit" ? null : checkoutAmount([price], { customAmount: checkout.amount, seats: checkout.seats }),
  }));
  return { product, prices, charged: checkout.trial_end === null };
}

/** How long the confirm request has to settle before the recovery job takes over. */
const SETTLE_RECOVERY_DELAY_MS = 5 * 60 * 1000;

const settleJobKey = (checkoutId: string) => `${TaskName.checkoutSettle}:${checkoutId}`;

/**
 * `open` → `confirmed`: the discount redeemed (refused once used up). Answers, with the session,
 * the recovery job for the caller to add with the session's event (one statement), so that should
 * the confirm request die between charge and completion, the job settles the session.
 */
export async function markConfirmed(
  db: Executor,
  checkout: CheckoutRow,
  confirmationToken: string | null,
  now: Date,
): Promise<{ confirmed: CheckoutRow; recovery: JobSpec }> {
  if (checkout.discount_id && !(await redeemDiscount(db, checkout.discount_id))) throw new DiscountRedemptionLimitReached();
  const confirmed = await updateCheckout(db, checkout.id, { status: "confirmed", modified_at: now });
  const recovery = {
    task: TaskName.checkoutSettle,
    payload: { checkoutId: checkout.id, confirmationToken },
    options: { runAt: new Date(now.getTime() + SETTLE_RECOVERY_DELAY_MS), jobKey: settleJobKey(checkout.id) },
  };
  return { confirmed, recovery };
}

/** The session settled (completed or refused): its recovery job is no longer needed. */
export const cancelSettleRecovery = (db: Executor, checkoutId: string) => removeJob(db, settleJobKey(checkoutId));

/** Where a confirmed session goes when its charge comes to nothing. */
const REFUSED_STATUS = {
  /** The processor declined: the buyer may try again. */
  declined: "open",
  failed: "failed",
  /** The buyer never finished the charge (3-D Secure) before the session expired; it was canceled at the processor. */
  abandoned: "expired",
} as const;

/** `confirmed` → `open`, `failed` or `expired` (REFUSED_STATUS); the discount is given back. */
export async function markRefused(db: Executor, checkout: CheckoutRow, outcome: keyof typeof REFUSED_STATUS, now: Date): Promise<void> {
  // The refused intent is over: a reopened session must not send the page (or the recovery job) back to it.
  const { intent_id: _id, intent_status: _status, intent_client_secret: _secret, ...kept } = checkout.payment_processor_metadata;
  await updateCheckout(db, checkout.id, {
    status: REFUSED_STATUS[outcome],
    payment_processor_metadata: JSON.stringify(kept),
    modified_at: now,
  });
  if (checkout.discount_id) await releaseDiscount(db, checkout.discount_id);
  await cancelSettleRecovery(db, checkout.id);
}

/**
 * The processor answered "not yet" (3-D Secure, or still processing): the session stays
 * `confirmed`, and its processor metadata tells the page what to finish (`intent_client_secret`)
 * and the recovery job which intent to ask about (`intent_id`), with the processor's customer
 * (`customer_id`) as on a completed session. Its expiry job gives the intent up
 * should the buyer never finish; an answer that arrives after the session's expiry (a confirm just
 * before it) brings that job forward to now.
 */
export async function markAwaitingProcessor(
  db: Executor,
  checkout: CheckoutRow,
  intent: { reference: string; clientSecret: string | null; customerReference: string | null },
  now: Date,
): Promise<void> {
  const metadata: Record<string, string> = {
    ...checkout.payment_processor_metadata,
    ...(intent.customerReference ? { customer_id: intent.customerReference } : {}),
    intent_id: intent.reference,
    intent_status: "requires_action",
  };
  if (intent.clientSecret) metadata.intent_client_secret = intent.clientSecret;
  else delete metadata.intent_client_secret;
  await updateCheckout(db, checkout.id, { payment_processor_metadata: JSON.stringify(metadata), modified_at: now });
  if (checkout.expires_at <= now) await scheduleCheckoutExpiry(db, checkout.id, now);
}

/** `confirmed` → `succeeded`, linked to the customer and subscription the completion made. */
export { addProcessorCustomerToCheckout } from "./checkouts.repository.ts";

export const markSucceeded = (db: Executor, checkoutId: string, links: { customerId: string; subscriptionId: string | null }, now: Date) =>
  updateCheckout(db, checkoutId, {
    status: "succeeded",
    customer_id: links.customerId,
    subscription_id: links.subscriptionId,
    modified_at: now,
  });
export { type CheckoutClientService, type CheckoutConfirmation } from "./checkouts.client.service.ts";
export { type CheckoutService, type CheckoutSessions, type PublishedCheckout } from "./checkouts.service.ts";
export { awaitedIntent, expireCheckoutWhenDue, type CheckoutAbandonment } from "./checkouts.tasks.ts";

// What the test clock runs of an organization's sessions.
export { dueCheckoutIds, nextCheckoutExpiryAt } from "./checkouts.repository.ts";

// What an order's documents read of its checkout (handed to orders by services.ts).
export { checkoutBuyers } from "./checkouts.repository.ts";
