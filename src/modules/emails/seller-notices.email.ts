import { documentLanguage } from "../../documents/language.ts";
import type { RecurringInterval } from "../../schema/primitives.ts";
import { emailLayout, intro, type EmailBrand, type RenderedEmail } from "./email-layout.ts";

// The seller's notices: written in English whatever the customers speak (the seller's own language
// is not known: docs/decisions.md, "Emails to the seller"), under the organization's name and logo.

/** Who a notice goes to: the organization's contact address, under its brand. */
export interface SellerAddress {
  organization: EmailBrand;
  recipient: string;
}

const english = documentLanguage(null);

/** A notice's frame: its subject as the title, the lines under it, the footer naming the address. */
function sellerNotice(to: SellerAddress, subject: string, lines: readonly string[]): RenderedEmail {
  return {
    subject,
    ...emailLayout(to.organization, english, {
      title: subject,
      sections: [intro(subject, ...lines)],
      footer: `This email was sent to ${to.recipient}, the contact address of ${to.organization.name}.`,
    }),
  };
}

const money = (amount: number, currency: string) => english.money(amount, currency);

/** A price per period as a seller reads it: `$15.00/month`, `$90.00/6 months`. */
export const pricePerPeriod = (amount: number, currency: string, interval: RecurringInterval, count: number): string =>
  `${money(amount, currency)}/${count === 1 ? interval : `${count} ${interval}s`}`;

export interface NewSale extends SellerAddress {
  product: string;
  /** What the customer paid, tax included. */
  amount: number;
  currency: string;
  customerEmail: string;
}

/** A one-time purchase was paid. */
export const renderNewSale = (sale: NewSale): RenderedEmail =>
  sellerNotice(sale, `You've made a new sale (${money(sale.amount, sale.currency)})!`, [
    `${sale.customerEmail} bought ${sale.product} for ${money(sale.amount, sale.currency)}.`,
  ]);

export interface NewSubscriber extends SellerAddress {
  product: string;
  /** What each period bills, before tax: the subscription's amount. */
  amount: number;
  currency: string;
  interval: RecurringInterval;
  intervalCount: number;
  /** The end of the trial the subscription starts with, if any. */
  trialEnd: Date | null;
  customerEmail: string;
}

/** A subscription became active for the first time (a trial included). */
export function renderNewSubscriber(subscriber: NewSubscriber): RenderedEmail {
  const price = pricePerPeriod(subscriber.amount, subscriber.currency, subscriber.interval, subscriber.intervalCount);
  return sellerNotice(subscriber, `You have a new subscriber on ${subscriber.product} (${price})!`, [
    `${subscriber.customerEmail} subscribed to ${subscriber.product} at ${price}.`,
    ...(subscriber.trialEnd ? [`Their trial ends on ${english.date(subscriber.trialEnd)}; the first charge follows.`] : []),
  ]);
}

export interface SubscriptionCanceled extends SellerAddress {
  product: string;
  customerEmail: string;
  /** When the subscription ends: its period's end. */
  endsAt: Date;
  reason: string | null;
  comment: string | null;
}

/** A customer canceled their subscription (it runs to the end of the period). */
export const renderSubscriptionCanceled = (canceled: SubscriptionCanceled): RenderedEmail =>
  sellerNotice(canceled, `${canceled.customerEmail} canceled their ${canceled.product} subscription`, [
    `The subscription stays active until ${english.date(canceled.endsAt)} and is not renewed after that.`,
    ...(canceled.reason ? [`Reason given: ${canceled.reason.replaceAll("_", " ")}.`] : []),
    ...(canceled.comment ? [`Their comment: ${canceled.comment}`] : []),
  ]);

export interface WebhookEndpointDisabled extends SellerAddress {
  endpointUrl: string;
}

/** An endpoint stopped receiving events after a streak of failed deliveries. */
export const renderWebhookEndpointDisabled = (disabled: WebhookEndpointDisabled): RenderedEmail =>
  sellerNotice(disabled, `Webhook endpoint disabled for ${disabled.organization.name}`, [
    `Deliveries to ${disabled.endpointUrl} kept failing, so the endpoint was disabled: no events are recorded for it until it is enabled again.`,
    "Once the endpoint answers again, enable it with PATCH /v1/webhooks/endpoints/{id} and enabled set to true.",
  ]);

export interface DisputeOpened extends SellerAddress {
  /** The disputed total, tax included. */
  amount: number;
  currency: string;
  /** The disputed order's description and number, as the seller's lists show it. */
  order: { description: string; invoiceNumber: string | null };
  reason: string | null;
  evidenceDueBy: Date | null;
}

/** A customer's bank opened a dispute (a chargeback) on a payment. */
export const renderDisputeOpened = (dispute: DisputeOpened): RenderedEmail =>
  sellerNotice(dispute, `A payment of ${money(dispute.amount, dispute.currency)} was disputed`, [
    `The customer's bank disputed the payment of ${dispute.order.description}${dispute.order.invoiceNumber ? ` (order ${dispute.order.invoiceNumber})` : ""}.`,
    ...(dispute.reason ? [`Reason given: ${dispute.reason.replaceAll("_", " ")}.`] : []),
    ...(dispute.evidenceDueBy ? [`Evidence is due by ${english.date(dispute.evidenceDueBy)}.`] : []),
    "Answer it with your payment processor, or accept it with POST /v1/disputes/{id}/accept.",
  ]);
