import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { recordEmail, renderRefundIssued, type CustomerEmailSetting } from "../modules/emails/emails.steps.ts";
import { creditNoteLink } from "../modules/orders/orders.steps.ts";
import type { CreditNoteRow, OrderBillingReason, OrderRow } from "../modules/orders/orders.table.ts";
import type { RefundRow } from "../modules/refunds/refunds.table.ts";
import { brandOf, customerPortalUrl, emailParties } from "./customer-email-parties.ts";

/**
 * The switch a refund notice follows: the one of the refunded order's own email, since a seller that
 * sends its own receipts for those orders corrects them itself (docs/decisions.md, "Refund emails").
 */
const SETTING_OF_ORDER: Record<OrderBillingReason, CustomerEmailSetting> = {
  purchase: "order_confirmation",
  subscription_create: "subscription_confirmation",
  subscription_cycle: "subscription_cycled",
  subscription_meter_cycle: "subscription_cycled",
  subscription_update: "subscription_updated",
};

/**
 * The customer's notice of a succeeded refund, in the refund's transaction: what came back, on
 * which order, and the credit note it issued (an invoiced order's) with a signed link to its PDF. One per refund, whatever settles it (the request, the recovery job, the processor's event).
 */
export async function writeRefundIssuedEmail(
  db: Executor,
  deps: Deps,
  refunded: { order: OrderRow; refund: RefundRow; creditNote: CreditNoteRow | null; now: Date },
): Promise<void> {
  const { order, refund, creditNote, now } = refunded;
  const parties = await emailParties(db, { organizationId: order.organization_id, customerId: order.customer_id });
  if (!parties) return;
  const { organization, customer } = parties;
  const portalUrl = customerPortalUrl(deps, organization);
  // A credit note corrects the invoice, whose number the customer holds; without one, the receipt's.
  const document = creditNote
    ? order.invoice_number && { kind: "invoice" as const, number: order.invoice_number }
    : order.receipt_number && { kind: "receipt" as const, number: order.receipt_number };
  const rendered = renderRefundIssued({
    organization: brandOf(organization),
    recipient: customer.email,
    locale: customer.locale,
    description: order.description,
    document: document || null,
    amount: refund.amount + refund.tax_amount,
    currency: refund.currency,
    refundedAt: now,
    creditNote: creditNote && { number: creditNote.number, url: creditNoteLink(deps, creditNote, now) },
    portalUrl,
  });
  await recordEmail(db, deps.config.email, {
    organization,
    audience: { to: "customer", kind: "notice", setting: SETTING_OF_ORDER[order.billing_reason] },
    dedupeKey: `refund_issued:${refund.id}`,
    template: "refund_issued",
    locale: customer.locale,
    recipient: customer.email,
    rendered,
    now,
  });
}
