import { sql } from "kysely";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob, removeJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { RequestValidationError, ResourceNotFound, missingIssue, type ValidationIssue } from "../../http/errors.ts";
import { TokenPrefix, generateToken, hashToken } from "../../values/tokens.ts";
import { grantBenefits } from "../benefits/benefit-grants.service.ts";
import { findLiveCustomer } from "../customers/customer-links.repository.ts";
import { insertCustomerSession } from "../customers/customer-sessions.repository.ts";
import { insertCustomer, updateCustomer } from "../customers/customers.repository.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { ensureOwner, memberManagementEnabled } from "../customers/member-changes.ts";
import { redeemDiscount, releaseDiscount } from "../discounts/discount-redemptions.repository.ts";
import { writeOrder } from "../orders/order-creation.ts";
import { readOrder } from "../orders/orders.service.ts";
import { publishSubscriptionEvents, startSubscription } from "../subscriptions/subscriptions.service.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import type { PaymentProcessor, SavedPaymentMethod } from "../../adapters/payment-processors/payment-processor.ts";
import { insertPayment, savePaymentMethod } from "../payments/payments.repository.ts";
import { parseTaxId, type TaxId } from "../../adapters/tax-engine/tax-id.ts";
import type { CheckoutConfirm } from "./checkout-inputs.schemas.ts";
import { DiscountRedemptionLimitReached, NotOpenCheckout, PaymentError, assertOpenForBuyer } from "./checkouts.errors.ts";
import { toCheckoutPublic } from "./checkouts.mapper.ts";
import { checkoutAmount, pricesIn } from "./checkouts.pricing.ts";
import { findCheckoutWithRelations, updateCheckout, type CheckoutWithRelations } from "./checkouts.repository.ts";
import type { Checkout, CheckoutPublicConfirmed } from "./checkouts.schemas.ts";
import type { CheckoutSessions } from "./checkouts.service.ts";

// Confirming a session: the buyer's confirmation, the charge, and the completion into a paid order.

/** What confirm needs filled in: the email, the address fields the form requires, a business's name. */
function missingForConfirm(checkout: Checkout): ValidationIssue[] {
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
function storedTaxId(checkout: CheckoutWithRelations): TaxId | null {
  const country = checkout.customer_billing_address?.country;
  return checkout.customer_tax_id && country ? parseTaxId(checkout.customer_tax_id, country) : null;
}

/**
 * The session's customer: the preset one, else the one with its external id, else the one with
 * its email, else a new one. A transaction-scoped advisory lock on the email keeps two sessions
 * of one buyer from both creating a customer.
 */
async function linkCustomer(
  db: Executor,
  checkout: CheckoutWithRelations,
  taxId: TaxId | null,
  now: Date,
  seatBased: boolean,
): Promise<CustomerRow> {
  const org = checkout.organization_id;
  const email = checkout.customer_email ?? "";
  // Both identities are locked, in a fixed order, so sessions sharing either one queue up.
  const identities = [
    `email:${email.toLowerCase()}`,
    ...(checkout.external_customer_id ? [`external:${checkout.external_customer_id}`] : []),
  ].sort();
  for (const identity of identities) await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${org}:${identity}`}, 0))`.execute(db);
  const existing =
    (checkout.customer_id ? await findLiveCustomer(db, org, { id: checkout.customer_id }) : undefined) ??
    (checkout.external_customer_id ? await findLiveCustomer(db, org, { externalId: checkout.external_customer_id }) : undefined) ??
    (await findLiveCustomer(db, org, { email }));
  const billing = {
    billing_name: checkout.customer_billing_name,
    billing_address: checkout.customer_billing_address ? JSON.stringify(checkout.customer_billing_address) : null,
    tax_id: taxId ? JSON.stringify(taxId) : null,
  };
  if (existing) {
    return updateCustomer(db, existing.id, {
      modified_at: now,
      ...(checkout.customer_billing_name ? { billing_name: checkout.customer_billing_name } : {}),
      ...(checkout.customer_billing_address ? { billing_address: billing.billing_address } : {}),
      ...(taxId ? { tax_id: billing.tax_id } : {}),
      ...(existing.external_id === null && checkout.external_customer_id ? { external_id: checkout.external_customer_id } : {}),
      // A seat-based purchase makes the buyer a team, never the reverse (docs/decisions.md, "Team customers and members").
      ...(seatBased ? { type: "team" as const } : {}),
    });
  }
  return insertCustomer(db, {
    created_at: now,
    modified_at: null,
    organization_id: org,
    type: seatBased ? "team" : "individual",
    email,
    external_id: checkout.external_customer_id,
    name: checkout.customer_name,
    ...billing,
    locale: checkout.locale,
    default_payment_method_id: null,
    metadata: JSON.stringify(checkout.customer_metadata),
    deleted_at: null,
  });
}

/**
 * `confirmed` → `succeeded` in one transaction: customer, paid order with its numbers, benefit
 * grants, a customer session, and the webhook events. Returns the session token for the buyer.
 */
async function completeCheckout(
  db: Executor,
  deps: Deps,
  sessions: CheckoutSessions,
  input: {
    checkout: CheckoutWithRelations;
    organization: OrganizationRow;
    paymentReference: string | null;
    /** The method the processor saved for a subscription's later charges. */
    savedMethod: SavedPaymentMethod | null;
  },
): Promise<string> {
  const now = deps.now();
  const { checkout, organization } = input;
  const taxId = storedTaxId(checkout);
  const product = checkout.products.find((p) => p.id === checkout.product_id);
  if (!product) throw new Error(`checkout ${checkout.id} reached completion without a product`);
  const productPrices = pricesIn(product, checkout.currency);
  const customer = await linkCustomer(
    db,
    checkout,
    taxId,
    now,
    productPrices.some((p) => p.amount_type === "seat_based"),
  );
  if (memberManagementEnabled(organization)) await ensureOwner(db, customer, null, now);
  const method = input.savedMethod
    ? await savePaymentMethod(db, { organizationId: organization.id, customerId: customer.id, method: input.savedMethod, now })
    : null;
  // The first saved method becomes the customer's default, as the processor's customer would have it.
  if (method && customer.default_payment_method_id === null)
    await updateCustomer(db, customer.id, { default_payment_method_id: method.id });
  const prices = productPrices.filter((p) => p.amount_type !== "metered_unit");
  const priceAmount = (price: (typeof prices)[number]) => checkoutAmount([price], { customAmount: checkout.amount, seats: checkout.seats });
  // A trial starts with nothing charged: the first order of the subscription is for zero.
  const charged = checkout.trial_end === null;
  const taxAmount = charged ? (checkout.tax_amount ?? 0) : 0;
  const subscription = product.recurring_interval
    ? await startSubscription(db, {
        organizationId: organization.id,
        customerId: customer.id,
        product: {
          id: product.id,
          recurringInterval: product.recurring_interval,
          recurringIntervalCount: product.recurring_interval_count ?? 1,
        },
        checkoutId: checkout.id,
        prices: productPrices.map((price) => ({ id: price.id, amount: price.amount_type === "metered_unit" ? null : priceAmount(price) })),
        currency: checkout.currency,
        taxBehavior: checkout.tax_behavior,
        // Before tax, whether the prices include it or not: the prices less the discount.
        amount: checkout.amount - checkout.discount_amount,
        discountId: checkout.discount_id,
        seats: checkout.seats,
        trialEnd: checkout.trial_end,
        metadata: checkout.metadata,
        customFieldData: checkout.custom_field_data,
        paymentMethodId: method?.id ?? null,
        now,
      })
    : null;
  const { order } = await writeOrder(db, {
    organization,
    customer,
    checkoutId: checkout.id,
    subscriptionId: subscription?.id ?? null,
    billingReason: subscription ? "subscription_create" : "purchase",
    status: "paid",
    product: { id: product.id, name: product.name },
    lines: prices.map((price) => ({
      priceId: price.id,
      amount: charged ? priceAmount(price) : 0,
      label: price.amount_type === "seat_based" ? `${product.name} (${checkout.seats ?? 1} seats)` : product.name,
    })),
    amounts: charged
      ? {
          subtotal: checkout.amount,
          discount: checkout.discount_amount,
          net: checkout.net_amount,
          tax: taxAmount,
          total: checkout.net_amount + taxAmount,
          currency: checkout.currency,
        }
      : { subtotal: 0, discount: 0, net: 0, tax: 0, total: 0, currency: checkout.currency },
    taxRate: charged
      ? { basisPoints: checkout.tax_rate_basis_points, reverseCharge: checkout.tax_reverse_charge }
      : { basisPoints: null, reverseCharge: false },
    discountId: checkout.discount_id,
    billing: {
      name: checkout.customer_billing_name ?? checkout.customer_name,
      address: checkout.customer_billing_address,
      taxId,
    },
    seats: checkout.seats,
    metadata: checkout.metadata,
    customFieldData: checkout.custom_field_data,
    paymentReference: input.paymentReference,
    now,
  });
  if (input.paymentReference) {
    await insertPayment(db, {
      created_at: now,
      modified_at: null,
      organization_id: organization.id,
      customer_id: customer.id,
      order_id: order.id,
      payment_method_id: method?.id ?? null,
      status: "succeeded",
      trigger: "purchase",
      amount: order.total_amount,
      currency: order.currency,
      processor_reference: input.paymentReference,
      decline_message: null,
    });
  }
  await grantBenefits(db, {
    customerId: customer.id,
    orderId: order.id,
    subscriptionId: subscription?.id ?? null,
    benefits: product.benefits,
    now,
  });
  await updateCheckout(db, checkout.id, {
    status: "succeeded",
    customer_id: customer.id,
    subscription_id: subscription?.id ?? null,
    modified_at: now,
  });

  const token = generateToken(TokenPrefix.customerSession);
  await insertCustomerSession(db, {
    created_at: now,
    modified_at: null,
    organization_id: organization.id,
    customer_id: customer.id,
    token_hash: hashToken(deps.secret, token),
    expires_at: new Date(now.getTime() + deps.config.customerSessionTtlSeconds * 1000),
    return_url: null,
  });
  // The anchor's order: the subscription's events (`active` for a trial too), then the order's.
  if (subscription)
    await publishSubscriptionEvents(db, subscription, ["subscription.created", "subscription.active", "subscription.updated"], now);
  const payload = await readOrder(db, order);
  await recordWebhookEvent(db, { organizationId: organization.id, type: "order.created", data: payload, now });
  await recordWebhookEvent(db, { organizationId: organization.id, type: "order.paid", data: payload, now });
  await sessions.publish(db, checkout.id, "checkout.updated");
  return token;
}

/** How long the confirm request has to settle before the recovery job takes over. */
const SETTLE_RECOVERY_DELAY_MS = 5 * 60 * 1000;

const settleJobKey = (checkoutId: string) => `${TaskName.checkoutSettle}:${checkoutId}`;

/**
 * Takes a confirmed session to its end: charge (when a payment form is needed), then complete it,
 * or reopen/fail it when the processor refuses. Called by the confirm request and, should that
 * request die half-way, by the recovery job; the processor call is idempotent per session and the
 * status checks under the row lock make the second caller a no-op.
 */
export function createCheckoutConfirmation(deps: Deps, sessions: CheckoutSessions, payments: PaymentProcessor) {
  async function settleFailure(checkoutId: string, outcome: "declined" | "failed"): Promise<void> {
    await deps.db.transaction().execute(async (trx) => {
      const row = await sessions.lock(trx, { id: checkoutId }, null);
      if (row.status !== "confirmed") return;
      await updateCheckout(trx, row.id, { status: outcome === "declined" ? "open" : "failed", modified_at: deps.now() });
      if (row.discount_id) await releaseDiscount(trx, row.discount_id);
      await removeJob(trx, settleJobKey(row.id));
      await sessions.publish(trx, row.id, "checkout.updated");
    });
  }

  /** Returns the buyer's new customer session token. */
  async function settle(checkout: Checkout, confirmationToken: string | null): Promise<string> {
    let paymentReference: string | null = null;
    let savedMethod: SavedPaymentMethod | null = null;
    if (checkout.is_payment_form_required && confirmationToken) {
      const outcome = await payments.charge({
        checkoutId: checkout.id,
        amount: checkout.is_payment_required ? checkout.total_amount : 0,
        currency: checkout.currency,
        confirmationToken,
        setupOnly: !checkout.is_payment_required,
        // A subscription charges the same method at each renewal.
        saveMethod: checkout.product?.is_recurring === true,
      });
      if (outcome.status !== "succeeded") {
        await settleFailure(checkout.id, outcome.status);
        throw new PaymentError(outcome.message);
      }
      if (checkout.is_payment_required) paymentReference = outcome.reference;
      savedMethod = outcome.method;
    }
    return deps.db.transaction().execute(async (trx) => {
      const row = await sessions.lock(trx, { id: checkout.id }, null);
      if (row.status !== "confirmed") throw new NotOpenCheckout();
      const full = await findCheckoutWithRelations(trx, { id: row.id }, null);
      if (!full) throw new ResourceNotFound();
      const organization = await sessions.organizationOf(trx, row.organization_id);
      await removeJob(trx, settleJobKey(row.id));
      return completeCheckout(trx, deps, sessions, { checkout: full, organization, paymentReference, savedMethod });
    });
  }

  /** The recovery job's entry: settles a session still confirmed, else does nothing. */
  async function recover(checkoutId: string, confirmationToken: string | null): Promise<void> {
    const full = await findCheckoutWithRelations(deps.db, { id: checkoutId }, null);
    if (!full || full.status !== "confirmed") return;
    try {
      await settle(sessions.view(full), confirmationToken);
    } catch (error) {
      // A refusal is an outcome, recorded by settleFailure; so is a session settled meanwhile.
      if (!(error instanceof PaymentError) && !(error instanceof NotOpenCheckout)) throw error;
    }
  }

  return {
    /**
     * Confirms, takes the payment, and completes. The confirmation commits first (status
     * `confirmed`, discount redeemed), so a second confirm of the same session is refused while
     * the payment is in flight; the processor is called outside any transaction.
     */
    async confirm(clientSecret: string, input: CheckoutConfirm): Promise<CheckoutPublicConfirmed> {
      const { confirmation_token_id: token, ...changes } = input;
      const confirmed = await deps.db.transaction().execute(async (trx) => {
        const row = await sessions.lock(trx, { clientSecret }, null);
        assertOpenForBuyer(row, deps.now());
        await sessions.edit(trx, row, changes, "buyer", { confirming: true });
        const edited = await findCheckoutWithRelations(trx, { id: row.id }, null);
        if (!edited) throw new ResourceNotFound();
        const preview = sessions.view(edited);
        const issues = missingForConfirm(preview);
        if (preview.is_payment_form_required && !token) issues.push(missingIssue(["body", "confirmation_token_id"]));
        if (issues.length) throw new RequestValidationError(issues);
        if (edited.discount_id && !(await redeemDiscount(trx, edited.discount_id))) throw new DiscountRedemptionLimitReached();
        await updateCheckout(trx, row.id, { status: "confirmed", modified_at: deps.now() });
        // Should this request die between charge and completion, the job settles the session.
        await enqueueJob(
          trx,
          TaskName.checkoutSettle,
          { checkoutId: row.id, confirmationToken: token ?? null },
          {
            runAt: new Date(deps.now().getTime() + SETTLE_RECOVERY_DELAY_MS),
            jobKey: settleJobKey(row.id),
          },
        );
        const published = await sessions.publish(trx, row.id, "checkout.updated");
        const organization = await sessions.organizationOf(trx, row.organization_id);
        return { ...published, organization };
      });

      const sessionToken = await settle(confirmed.checkout, token ?? null);
      const view = toCheckoutPublic(confirmed.full, sessions.urls, confirmed.organization);
      return { ...view, status: "confirmed", customer_session_token: sessionToken };
    },

    recover,
  };
}
export type CheckoutConfirmation = ReturnType<typeof createCheckoutConfirmation>;
