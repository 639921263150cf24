import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import type { PaymentProcessor, SavedPaymentMethod } from "../adapters/payment-processors/payment-processor.ts";
import type { TaxId } from "../adapters/tax-engine/tax-id.ts";
import { grantBenefits } from "../modules/benefits/benefits.steps.ts";
import type { CheckoutSessions } from "../modules/checkouts/checkouts.steps.ts";
import {
  addProcessorCustomerToCheckout,
  markSucceeded,
  purchaseOf,
  storedTaxId,
  type CheckoutPurchase,
  type CheckoutWithRelations,
} from "../modules/checkouts/checkouts.steps.ts";
import {
  adoptFirstPaymentMethod,
  linkBuyer,
  openCustomerSession,
  rememberProcessorCustomer,
} from "../modules/customers/customers.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import { paidOrderEvents, writeOrder, type NewOrder } from "../modules/orders/orders.steps.ts";
import { recordWebhookEvents } from "../jobs/webhook-outbox.ts";
import { writeOrderPaidEmail } from "./order-paid-email.ts";
import { writeCheckoutNotice } from "./seller-notices.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import { recordPayment, savePaymentMethod } from "../modules/payments/payments.steps.ts";
import type { PaymentMethodRow } from "../modules/payments/payments.table.ts";
import { publishSubscriptionEvents, startSubscription } from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";

/** What the checkout flows run on: the application's dependencies, the sessions service and the processor. */
export interface CheckoutFlowContext {
  deps: Deps;
  sessions: CheckoutSessions;
  payments: PaymentProcessor;
}

/** A confirmed session on its way to `succeeded`, with what its charge gave. */
export interface Completion {
  checkout: CheckoutWithRelations;
  organization: OrganizationRow;
  paymentReference: string | null;
  /** The method the processor saved for a subscription's later charges. */
  savedMethod: SavedPaymentMethod | null;
  /** The processor's customer the charge was made for (kept on the customer for their next payments). */
  customerReference: string | null;
}

/** A purchase of seats: its buyer becomes a team and gets none of the product's benefits (its claimed seats' holders do). */
const buysSeats = (purchase: CheckoutPurchase): boolean => purchase.prices.some((price) => price.seatBased);

/** The session's buyer as a customer: a seat-based purchase makes it a team. */
function linkCheckoutBuyer(db: Executor, input: Completion, purchase: CheckoutPurchase, taxId: TaxId | null, now: Date) {
  const { checkout } = input;
  return linkBuyer(
    db,
    input.organization,
    {
      customerId: checkout.customer_id,
      externalId: checkout.external_customer_id,
      email: checkout.customer_email ?? "",
      name: checkout.customer_name,
      billingName: checkout.customer_billing_name,
      billingAddress: checkout.customer_billing_address,
      taxId,
      locale: checkout.locale,
      metadata: checkout.customer_metadata,
      team: buysSeats(purchase),
    },
    now,
  );
}

/** Stores the method the processor saved, the customer's first becoming its default. */
async function keepSavedMethod(db: Executor, input: Completion, customer: CustomerRow, now: Date): Promise<PaymentMethodRow | null> {
  if (!input.savedMethod) return null;
  const method = await savePaymentMethod(db, {
    organizationId: input.organization.id,
    customerId: customer.id,
    method: input.savedMethod,
    now,
  });
  await adoptFirstPaymentMethod(db, customer, method.id);
  return method;
}

/** A recurring product's subscription, started on the session's terms; null for a one-time purchase. */
async function startCheckoutSubscription(
  db: Executor,
  input: Completion,
  purchase: CheckoutPurchase,
  paid: { customer: CustomerRow; method: PaymentMethodRow | null },
  now: Date,
): Promise<SubscriptionRow | null> {
  const { checkout } = input;
  const { product } = purchase;
  if (!product.recurring_interval) return null;
  return startSubscription(db, {
    organizationId: input.organization.id,
    customerId: paid.customer.id,
    product: {
      id: product.id,
      recurringInterval: product.recurring_interval,
      recurringIntervalCount: product.recurring_interval_count ?? 1,
    },
    checkoutId: checkout.id,
    prices: purchase.prices.map((price) => ({ id: price.id, amount: price.amount })),
    currency: checkout.currency,
    taxBehavior: checkout.tax_behavior,
    // Before tax, whether the prices include it or not: the prices less the discount.
    amount: checkout.amount - checkout.discount_amount,
    discountId: checkout.discount_id,
    seats: checkout.seats,
    trialEnd: checkout.trial_end,
    metadata: checkout.metadata,
    customFieldData: checkout.custom_field_data,
    paymentMethodId: paid.method?.id ?? null,
    now,
  });
}

/** The session's paid order: its lines and amounts as priced, all zero during a trial. */
function checkoutOrder(
  input: Completion,
  purchase: CheckoutPurchase,
  made: { customer: CustomerRow; subscription: SubscriptionRow | null; taxId: TaxId | null },
  now: Date,
): NewOrder {
  const { checkout } = input;
  const { product, charged } = purchase;
  const tax = charged ? (checkout.tax_amount ?? 0) : 0;
  return {
    organization: input.organization,
    customer: made.customer,
    checkoutId: checkout.id,
    subscriptionId: made.subscription?.id ?? null,
    billingReason: made.subscription ? "subscription_create" : "purchase",
    status: "paid",
    product: { id: product.id, name: product.name },
    lines: purchase.prices.flatMap(({ id, seatBased, amount }) =>
      amount === null
        ? []
        : [
            {
              priceId: id,
              amount: charged ? amount : 0,
              label: seatBased ? `${product.name} (${checkout.seats ?? 1} seats)` : product.name,
            },
          ],
    ),
    amounts: charged
      ? {
          subtotal: checkout.amount,
          discount: checkout.discount_amount,
          net: checkout.net_amount,
          tax,
          total: checkout.net_amount + tax,
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
      taxId: made.taxId,
    },
    seats: checkout.seats,
    metadata: checkout.metadata,
    customFieldData: checkout.custom_field_data,
    paymentReference: input.paymentReference,
    now,
  };
}

/**
 * `confirmed` → `succeeded` in the caller's transaction: customer, paid order with its numbers,
 * benefit grants, a customer session, and the webhook events. Returns the session token for the buyer.
 */
export async function completeCheckout(db: Executor, ctx: CheckoutFlowContext, input: Completion): Promise<string> {
  const now = ctx.deps.now();
  const { checkout, organization } = input;
  const taxId = storedTaxId(checkout);
  const purchase = purchaseOf(checkout);
  const customer = await linkCheckoutBuyer(db, input, purchase, taxId, now);
  await rememberProcessorCustomer(db, customer, input.customerReference);
  // The processor's customer shows on the session, as the hosted service's `payment_processor_metadata.customer_id`.
  const processorCustomer = input.customerReference ?? customer.processor_customer_reference;
  if (processorCustomer) await addProcessorCustomerToCheckout(db, checkout.id, processorCustomer);
  const method = await keepSavedMethod(db, input, customer, now);
  const subscription = await startCheckoutSubscription(db, input, purchase, { customer, method }, now);
  const { order, items } = await writeOrder(db, checkoutOrder(input, purchase, { customer, subscription, taxId }, now));
  if (input.paymentReference) {
    await recordPayment(db, {
      organizationId: organization.id,
      customerId: customer.id,
      orderId: order.id,
      methodId: method?.id ?? null,
      trigger: "purchase",
      amount: order.total_amount,
      currency: order.currency,
      reference: input.paymentReference,
      now,
    });
  }
  const subscriptionId = subscription?.id ?? null;
  const benefits = buysSeats(purchase) ? [] : purchase.product.benefits;
  await grantBenefits(db, { customerId: customer.id, orderId: order.id, subscriptionId, benefits, newSource: true, now });
  // A subscription's first order (a trial's $0 one too) is confirmed with its own template.
  await writeOrderPaidEmail(db, ctx.deps, {
    reason: subscription ? "subscription_create" : "purchase",
    organization,
    customer,
    order,
    items,
    benefits,
    locale: checkout.locale ?? customer.locale,
    now,
  });
  await writeCheckoutNotice(db, ctx.deps, { organization, customer, order, subscription, product: purchase.product, now });
  const succeeded = await markSucceeded(db, checkout.id, { customerId: customer.id, subscriptionId }, now);
  const { token } = await openCustomerSession(db, ctx.deps, {
    organizationId: organization.id,
    customerId: customer.id,
    memberId: null,
    returnUrl: null,
    now,
  });
  // The hosted service's order: the subscription's events (`active` for a trial too), then the order's.
  if (subscription)
    await publishSubscriptionEvents(db, subscription, ["subscription.created", "subscription.active", "subscription.updated"], now);
  // Completing writes the session's own row only (its products and discount stay as read): no second
  // read. Its event follows the order's, the three in one statement.
  const session = ctx.sessions.eventOf({ ...checkout, ...succeeded }, "checkout.updated");
  await recordWebhookEvents(db, [...(await paidOrderEvents(db, order, now)), session.event]);
  return token;
}
