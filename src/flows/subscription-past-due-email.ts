import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { findCustomerEvenDeleted } from "../modules/customers/customers.steps.ts";
import { SIGN_IN_LINK_TTL_MS, issuePortalSignInLink } from "../modules/customers/portal-sign-ins.steps.ts";
import { customerEmailAllowed, recordEmail, renderSubscriptionPastDue } from "../modules/emails/emails.steps.ts";
import { dueAmount } from "../modules/orders/orders.steps.ts";
import type { OrderRow } from "../modules/orders/orders.table.ts";
import { findOrganization } from "../modules/organizations/organizations.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";

/** Where the failed-payment email's link opens the portal: its payment method section. */
const PAYMENT_SECTION = "#payment-method";

/**
 * The customer's failed-payment notice (`subscription_past_due`), written in the transaction that
 * made the subscription past due: once per episode (its `past_due_at`), with a single-use sign-in
 * link to the portal's payment method, never a session token. Nothing when the organization
 * switched the email off (no link is issued then) or the customer is gone.
 */
export async function writeSubscriptionPastDue(
  db: Executor,
  deps: Deps,
  pastDue: { subscription: SubscriptionRow; order: OrderRow; pastDueAt: Date; now: Date },
): Promise<void> {
  const { subscription, order, now } = pastDue;
  const [organization, customer] = await Promise.all([
    findOrganization(db, subscription.organization_id, null),
    findCustomerEvenDeleted(db, subscription.customer_id),
  ]);
  if (!organization || customer.deleted_at !== null || !customer.email) return;
  if (!customerEmailAllowed(organization.customer_email_settings, "subscription_past_due")) return;
  const paymentUrl = await issuePortalSignInLink(db, deps, { organization, customer, path: PAYMENT_SECTION, now });
  const rendered = renderSubscriptionPastDue({
    organization: { name: organization.name, logoUrl: organization.avatar_url },
    recipient: customer.email,
    locale: customer.locale,
    product: order.description,
    amount: dueAmount(order),
    currency: order.currency,
    paymentUrl,
    linkValidHours: SIGN_IN_LINK_TTL_MS / 3_600_000,
  });
  await recordEmail(db, deps.config.email, {
    organization,
    audience: { to: "customer", kind: "notice", setting: "subscription_past_due" },
    dedupeKey: `subscription_past_due:${subscription.id}:${pastDue.pastDueAt.toISOString()}`,
    template: "subscription_past_due",
    locale: customer.locale,
    recipient: customer.email,
    rendered,
    now,
  });
}
