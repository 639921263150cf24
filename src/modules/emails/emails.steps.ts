import { randomUUID } from "node:crypto";
import type { Executor } from "../../db/database.ts";
import type { EmailConfig } from "../../email-config.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { insertEmailOnce } from "./emails.repository.ts";
import type { RenderedEmail } from "./email-layout.ts";

// What the emails module offers the flows: an email written in the transaction of its cause.

export { renderOrderConfirmation, type OrderConfirmation } from "./order-confirmation.email.ts";

/** Attempts before an email is marked failed: graphile-worker's backoff (e^n s, at most 6 h apart) spreads 25 over about four days. */
export const SEND_ATTEMPTS = 25;

export interface NewEmail {
  organization: { id: string; name: string };
  /** `<template>:<id of the cause>`; a second email for the same key is not written. */
  dedupeKey: string;
  template: string;
  locale: string | null;
  recipient: string;
  rendered: RenderedEmail;
  now: Date;
}

/**
 * Writes the email in the caller's transaction and, with a mail server configured, its send job in
 * the same one: the email exists (and will be sent) exactly when its cause committed. Without
 * `SMTP_URL` it is written `kept`. A cause already recorded writes nothing. Returns the new email's
 * id, or null for a repeated cause.
 */
export async function recordEmail(db: Executor, config: EmailConfig, email: NewEmail): Promise<string | null> {
  const domain = config.from.address.split("@")[1]!;
  const id = await insertEmailOnce(db, {
    created_at: email.now,
    organization_id: email.organization.id,
    dedupe_key: email.dedupeKey,
    template: email.template,
    locale: email.locale,
    sender_name: email.organization.name,
    sender_address: config.from.address,
    recipient: email.recipient,
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
