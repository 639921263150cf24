import { randomUUID } from "node:crypto";
import type { Executor } from "../../db/database.ts";
import type { EmailConfig } from "../../email-config.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import type { OrganizationCustomerEmailSettingsKeys, OrganizationNotificationSettings } from "../organizations/organizations.schemas.ts";
import { emailSenderOf, notificationSettingsOf } from "../organizations/organizations.mapper.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { insertEmailOnce } from "./emails.repository.ts";
import type { RenderedEmail } from "./email-layout.ts";

// What the emails module offers the flows: an email written in the transaction of its cause.

export { renderOrderEmail, type GrantedBenefit, type OrderEmail, type OrderEmailReason } from "./order-paid.email.ts";
export { renderSubscriptionNotice, type SubscriptionNotice, type SubscriptionNoticeKind } from "./subscription-notice.email.ts";
export { renderRefundIssued, type RefundIssued } from "./refund-issued.email.ts";
export type { EmailBrand } from "./email-layout.ts";
export { renderRenewalReminder, renderTrialConversionReminder, type SubscriptionReminder } from "./subscription-reminders.email.ts";
export { emailRecorded } from "./emails.repository.ts";
export { renderPortalSignInCode, type PortalSignInCode } from "./portal-sign-in-code.email.ts";
export {
  renderCustomerEmailChanged,
  renderCustomerEmailUpdate,
  type CustomerEmailChanged,
  type CustomerEmailUpdateVerification,
} from "./customer-email-update.email.ts";
export { renderSubscriptionPastDue, type SubscriptionPastDue } from "./subscription-past-due.email.ts";
export { renderSeatInvitation, type SeatInvitation } from "./seat-invitation.email.ts";

/** Attempts before an email is marked failed: graphile-worker's backoff (e^n s, at most 6 h apart) spreads 25 over about four days. */
export const SEND_ATTEMPTS = 25;

/** A switch of the organization's `customer_email_settings`. */
export type CustomerEmailSetting = (typeof OrganizationCustomerEmailSettingsKeys)[number];

/** A switch of the organization's `notification_settings` (the seller's own notices). */
export type SellerNotificationSetting = keyof OrganizationNotificationSettings;

/**
 * Who an email is for, which decides its switch and headers. A customer's email speaks for the
 * seller (its name, `Reply-To` its address); a `receipt` (a paid order), a `sign_in` code, an
 * `account` email (the change of the customer's own address) and a seat's `invitation` carry no
 * `List-Unsubscribe`, a `notice` does; the sign-in code, account emails and invitations (sent once
 * per assignment or resend) have no switch (the customer asked for them, or must know). A seller's
 * notice comes from this server's own sender (`EMAIL_FROM`) and has a switch of its own.
 */
export type EmailAudience =
  | { to: "customer"; kind: "receipt" | "notice"; setting: CustomerEmailSetting }
  | { to: "customer"; kind: "sign_in" | "account" | "invitation" }
  | { to: "seller"; kind: "notice"; setting: SellerNotificationSetting };

/**
 * Whether the organization lets this email go: a switch stored `false` is off; a missing one is on,
 * except the card-expiry reminder, which follows the renewal receipt's (as the hosted service reads them).
 */
export function customerEmailAllowed(settings: OrganizationRow["customer_email_settings"], setting: CustomerEmailSetting): boolean {
  const stored = settings[setting] ?? (setting === "payment_method_expiration_reminder" ? settings.subscription_cycled : undefined);
  return stored !== false;
}

/** What of an organization an email reads: its name, addresses, switches and sender. */
export type EmailingOrganization = Pick<
  OrganizationRow,
  | "id"
  | "name"
  | "email"
  | "customer_email_settings"
  | "notification_settings"
  | "email_sender_name"
  | "email_sender_address"
  | "email_reply_to"
>;

/**
 * Who a customer's email comes from: the organization's own sender when it set one (its name, else
 * the organization's), else the organization's name on `EMAIL_FROM`'s address; Reply-To its own,
 * else the organization's email. A seller's email comes from this server's sender, with no Reply-To.
 */
function senderOf(config: EmailConfig, organization: EmailingOrganization, audience: EmailAudience) {
  if (audience.to === "seller") return { name: config.from.name, address: config.from.address, replyTo: null };
  const own = emailSenderOf(organization);
  return {
    name: own?.name ?? organization.name,
    address: own?.address ?? config.from.address,
    replyTo: own?.reply_to ?? organization.email,
  };
}

export interface NewEmail {
  organization: EmailingOrganization;
  audience: EmailAudience;
  /** `<template>:<id of the cause>`; a second email for the same key is not written. */
  dedupeKey: string;
  template: string;
  locale: string | null;
  recipient: string;
  rendered: RenderedEmail;
  now: Date;
}

/** Whether the organization lets this email go, by the switch its audience names (none: always). */
function emailAllowed(organization: EmailingOrganization, audience: EmailAudience): boolean {
  if (audience.to === "seller") return notificationSettingsOf(organization.notification_settings)[audience.setting];
  return !("setting" in audience) || customerEmailAllowed(organization.customer_email_settings, audience.setting);
}

/**
 * Writes the email in the caller's transaction and, with a mail server configured, its send job in
 * the same one: the email exists (and will be sent) exactly when its cause committed. Without
 * `SMTP_URL` it is written `kept`. A cause already recorded, or an email the organization switched
 * off, writes nothing. Returns the new email's id, or null when none was written.
 */
export async function recordEmail(db: Executor, config: EmailConfig, email: NewEmail): Promise<string | null> {
  const { organization, audience } = email;
  if (!emailAllowed(organization, audience)) return null;
  const sender = senderOf(config, organization, audience);
  const domain = sender.address.split("@")[1]!;
  const id = await insertEmailOnce(db, {
    created_at: email.now,
    organization_id: organization.id,
    dedupe_key: email.dedupeKey,
    template: email.template,
    locale: email.locale,
    sender_name: sender.name,
    sender_address: sender.address,
    recipient: email.recipient,
    reply_to: sender.replyTo,
    // An unsubscribe request goes to whoever sends the notice: the seller, else this server's sender.
    list_unsubscribe: audience.kind === "notice" ? `<mailto:${sender.replyTo ?? sender.address}?subject=unsubscribe>` : null,
    // One line, whatever a printed name holds: a header never takes a line break.
    subject: email.rendered.subject.replace(/\s+/g, " ").trim(),
    html: email.rendered.html,
    text: email.rendered.text,
    message_id: `<${randomUUID()}@${domain}>`,
    status: config.smtp ? "pending" : "kept",
    last_error: null,
    sent_at: null,
  });
  if (id && config.smtp)
    await enqueueJob(db, TaskName.emailSend, { emailId: id }, { jobKey: `${TaskName.emailSend}:${id}`, maxAttempts: SEND_ATTEMPTS });
  return id;
}
