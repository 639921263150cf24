import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { findLiveCustomer } from "../modules/customers/customers.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import {
  renderNewSale,
  renderNewSubscriber,
  renderSubscriptionCanceled,
  writeSellerNotice,
} from "../modules/emails/seller-notices.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import { findOrganization } from "../modules/organizations/organizations.steps.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import { findProductBilling } from "../modules/products/products.steps.ts";
import type { Actor } from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";

// The seller's notices of its customers' doings (anchor-behaviour-wave3 §2.4), each written in the
// transaction of its cause to the organization's contact address.

/** How the seller knows the customer: by email, else (an API-made customer may lack one) by name or id. */
const customerLabel = (customer: CustomerRow) => customer.email || (customer.name ?? customer.id);

/**
 * A completed checkout, told to the seller: a one-time order is a new sale, a subscription (a trial
 * included) a new subscriber. One each per order or subscription, however the completion replays.
 */
export async function writeCheckoutNotice(
  db: Executor,
  deps: Deps,
  completed: {
    organization: OrganizationRow;
    customer: CustomerRow;
    order: OrderRow;
    subscription: SubscriptionRow | null;
    product: { name: string };
    now: Date;
  },
): Promise<void> {
  const { organization, customer, order, subscription, product, now } = completed;
  const customerEmail = customerLabel(customer);
  if (!subscription) {
    await writeSellerNotice(db, deps.config.email, {
      organization,
      template: "seller_new_sale",
      setting: "new_order",
      dedupeKey: `seller_new_sale:${order.id}`,
      render: (to) => renderNewSale({ ...to, product: product.name, amount: order.total_amount, currency: order.currency, customerEmail }),
      now,
    });
    return;
  }
  await writeSellerNotice(db, deps.config.email, {
    organization,
    template: "seller_new_subscription",
    setting: "new_subscription",
    dedupeKey: `seller_new_subscription:${subscription.id}`,
    render: (to) =>
      renderNewSubscriber({
        ...to,
        product: product.name,
        amount: subscription.amount,
        currency: subscription.currency,
        interval: subscription.recurring_interval,
        intervalCount: subscription.recurring_interval_count,
        trialEnd: subscription.status === "trialing" ? subscription.trial_end : null,
        customerEmail,
      }),
    now,
  });
}

/**
 * A customer's cancellation (through the portal), told to the seller when it is scheduled: one per
 * cancellation, a later one after an uncancel being a new one. The merchant's own changes are not told back.
 */
export async function writeCancellationNotice(
  db: Executor,
  deps: Deps,
  change: { before: SubscriptionRow; after: SubscriptionRow; actor: Actor; now: Date },
): Promise<void> {
  const { before, after, actor, now } = change;
  if (actor !== "customer" || before.cancel_at_period_end || !after.cancel_at_period_end || !after.canceled_at) return;
  const organization = await findOrganization(db, after.organization_id, null);
  const customer = await findLiveCustomer(db, after.organization_id, { id: after.customer_id });
  if (!organization || !customer) return;
  const product = await findProductBilling(db, after.product_id);
  await writeSellerNotice(db, deps.config.email, {
    organization,
    template: "seller_subscription_canceled",
    setting: "subscription_cancellation",
    dedupeKey: `seller_subscription_canceled:${after.id}:${after.canceled_at.toISOString()}`,
    render: (to) =>
      renderSubscriptionCanceled({
        ...to,
        product: product.name,
        customerEmail: customerLabel(customer),
        endsAt: after.current_period_end,
        reason: after.customer_cancellation_reason,
        comment: after.customer_cancellation_comment,
      }),
    now,
  });
}
