import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { recordEmail, renderSubscriptionNotice, type SubscriptionNoticeKind } from "../modules/emails/emails.steps.ts";
import { findProductBilling } from "../modules/products/products.steps.ts";
import { endSubscription } from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { brandOf, customerPortalUrl, emailParties } from "./customer-email-parties.ts";

// What the customer hears when a subscription is canceled, uncanceled or ends: written where the
// state changes, in that transaction.

/**
 * The cause an email stands for: a cancellation by the time it was asked (a cancel, an uncancel and a
 * cancel again are two cancellations), an uncancel by its time, an end once per subscription.
 */
function dedupeKey(kind: SubscriptionNoticeKind, row: SubscriptionRow, now: Date): string {
  switch (kind) {
    case "subscription_cancellation":
      return `${kind}:${row.id}:${(row.canceled_at ?? now).toISOString()}`;
    case "subscription_uncanceled":
      return `${kind}:${row.id}:${now.toISOString()}`;
    case "subscription_revoked":
      return `${kind}:${row.id}`;
  }
}

/** The date a notice gives: when a canceled subscription ends, when an uncanceled one renews, when an ended one ended. */
function noticeDate(kind: SubscriptionNoticeKind, row: SubscriptionRow, now: Date): Date {
  if (kind === "subscription_revoked") return row.ended_at ?? now;
  if (kind === "subscription_cancellation") return row.ends_at ?? row.current_period_end;
  return row.current_period_end;
}

/** Writes a subscription notice for `row` as the change left it, in the change's transaction. */
export async function writeSubscriptionNotice(
  db: Executor,
  deps: Deps,
  row: SubscriptionRow,
  kind: SubscriptionNoticeKind,
  now: Date,
): Promise<void> {
  const parties = await emailParties(db, { organizationId: row.organization_id, customerId: row.customer_id });
  if (!parties) return;
  const { organization, customer } = parties;
  const product = await findProductBilling(db, row.product_id);
  const rendered = renderSubscriptionNotice({
    kind,
    organization: brandOf(organization),
    recipient: customer.email,
    locale: customer.locale,
    product: product.name,
    amount: row.amount,
    currency: row.currency,
    date: noticeDate(kind, row, now),
    portalUrl: customerPortalUrl(deps, organization),
  });
  await recordEmail(db, deps.config.email, {
    organization,
    audience: { to: "customer", kind: "notice", setting: kind },
    dedupeKey: dedupeKey(kind, row, now),
    template: kind,
    locale: customer.locale,
    recipient: customer.email,
    rendered,
    now,
  });
}

/**
 * Ends a locked subscription now (a revoke, the end of a canceled period, dunning run out) and tells
 * its customer, in the caller's transaction. The end's email stands for the cancellation too.
 */
export async function endSubscriptionAndTell(
  trx: Executor,
  deps: Deps,
  row: SubscriptionRow,
  now: Date,
  cancellation: Parameters<typeof endSubscription>[3] = {},
): Promise<SubscriptionRow> {
  const ended = await endSubscription(trx, row, now, cancellation);
  await writeSubscriptionNotice(trx, deps, ended, "subscription_revoked", now);
  return ended;
}
