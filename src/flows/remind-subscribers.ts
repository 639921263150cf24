import type { Executor } from "../db/database.ts";
import { findLiveCustomer } from "../modules/customers/customers.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import {
  emailRecorded,
  recordEmail,
  renderRenewalReminder,
  renderTrialConversionReminder,
  type SubscriptionReminder,
} from "../modules/emails/emails.steps.ts";
import { findOrganization } from "../modules/organizations/organizations.steps.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import { findProductBilling } from "../modules/products/products.steps.ts";
import {
  organizationsWithRemindersDue,
  subscriptionLines,
  subscriptionsToRemind,
  type ReminderKind,
} from "../modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../modules/subscriptions/subscriptions.table.ts";
import { atClockOffset } from "../values/clock.ts";
import { periodCharge, taxedAmounts } from "./bill-subscription.ts";
import type { SubscriptionFlowContext } from "./subscription-flow-context.ts";

// Reminders before a charge (anchor-behaviour-wave3 §2.3): a long-cycle renewal a week ahead, a
// trial's end a few days ahead. An hourly scan at each organization's own time writes each once per
// period: the key names the subscription and the UTC date of the charge, so a rescan writes nothing.

const REMINDERS = {
  renewal: {
    template: "subscription_renewal_reminder",
    render: renderRenewalReminder,
    chargedAt: (row: SubscriptionRow) => row.current_period_end,
  },
  trial: {
    template: "subscription_trial_conversion_reminder",
    render: renderTrialConversionReminder,
    // The scan only picks trials with an end.
    chargedAt: (row: SubscriptionRow) => row.trial_end ?? row.current_period_end,
  },
} as const;

/**
 * What the period starting at `start` will charge, tax included: its static prices less the discount
 * still running then, taxed as its order will be (usage and the changes' waiting entries aside).
 */
async function upcomingCharge(trx: Executor, ctx: SubscriptionFlowContext, parties: ChargeParties, start: Date): Promise<number> {
  const { row } = parties;
  const product = await findProductBilling(trx, row.product_id);
  const { subtotal, discounted } = await periodCharge(trx, row, await subscriptionLines(trx, row, product.name), start);
  const { net, tax } = taxedAmounts(ctx.taxEngine, parties, { product, now: start }, subtotal - discounted);
  return net + tax;
}
type ChargeParties = { row: SubscriptionRow; organization: OrganizationRow; customer: CustomerRow };

/** One reminder, in its own transaction; false when it was written before or has nobody to go to. */
async function remind(
  ctx: SubscriptionFlowContext,
  organization: OrganizationRow,
  kind: ReminderKind,
  row: SubscriptionRow,
): Promise<boolean> {
  const { deps } = ctx;
  const { template, render, chargedAt } = REMINDERS[kind];
  const charge = chargedAt(row);
  const dedupeKey = `${template}:${row.id}:${charge.toISOString().slice(0, 10)}`;
  if (await emailRecorded(deps.db, dedupeKey)) return false;
  return deps.db.transaction().execute(async (trx) => {
    const customer = await findLiveCustomer(trx, organization.id, { id: row.customer_id });
    if (!customer?.email) return false;
    const product = await findProductBilling(trx, row.product_id);
    const reminder: SubscriptionReminder = {
      organization: { name: organization.name, logoUrl: organization.avatar_url },
      recipient: customer.email,
      locale: customer.locale,
      product: product.name,
      amount: await upcomingCharge(trx, ctx, { row, organization, customer }, charge),
      currency: row.currency,
      chargedAt: charge,
      portalUrl: `${deps.config.publicBaseUrl}/${encodeURIComponent(organization.slug)}/portal`,
    };
    const id = await recordEmail(trx, deps.config.email, {
      organization,
      audience: { to: "customer", kind: "notice", setting: template },
      dedupeKey,
      template,
      locale: customer.locale,
      recipient: customer.email,
      rendered: render(reminder),
      now: deps.now(),
    });
    return id !== null;
  });
}

/** Every reminder due in one organization at the calling context's clock; returns how many were written. */
async function remindOrganization(ctx: SubscriptionFlowContext, organizationId: string): Promise<number> {
  const organization = await findOrganization(ctx.deps.db, organizationId, null);
  if (!organization) return 0;
  let written = 0;
  for (const kind of ["renewal", "trial"] as const)
    for (const row of await subscriptionsToRemind(ctx.deps.db, organizationId, kind, ctx.deps.now()))
      if (await remind(ctx, organization, kind, row)) written += 1;
  return written;
}

/** The scan: every organization with a reminder due, each at its own time (a sandbox test clock ahead reminds at its time). */
export async function remindSubscribers(ctx: SubscriptionFlowContext): Promise<number> {
  let written = 0;
  for (const organization of await organizationsWithRemindersDue(ctx.deps.db, ctx.deps.now()))
    written += await atClockOffset(organization.clock_offset_ms, () => remindOrganization(ctx, organization.id));
  return written;
}
