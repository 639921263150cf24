import { UsageError } from "./cli-usage-error.ts";
import { UUID4_PATTERN } from "./http/validation.ts";
import { createEmailOutbox } from "./modules/emails/emails.service.ts";
import type { EmailRow, EmailStatus } from "./modules/emails/emails.table.ts";
import type { Runtime } from "./runtime.ts";

// `commerce-api emails list|show`: the outbox read from the terminal, so a developer without a mail server sees every email.

const STATUSES: readonly EmailStatus[] = ["pending", "sent", "failed", "kept"];

const summary = (email: EmailRow) => ({
  id: email.id,
  created_at: email.created_at.toISOString(),
  status: email.status,
  template: email.template,
  recipient: email.recipient,
  subject: email.subject,
  attempts: email.attempts,
  sent_at: email.sent_at?.toISOString() ?? null,
});

export async function listEmails(
  runtime: Runtime,
  json: boolean,
  options: { status: string | undefined; limit: string | undefined },
): Promise<void> {
  const status = options.status ?? null;
  if (status !== null && !STATUSES.includes(status as EmailStatus)) throw new UsageError(`--status must be one of ${STATUSES.join(", ")}`);
  const limit = options.limit === undefined ? 50 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError("--limit must be a whole number from 1 to 1000");
  const emails = (await createEmailOutbox(runtime.deps).list({ status: status as EmailStatus | null, limit })).map(summary);
  const lines = emails.map((email) => `${email.id}  ${email.created_at}  ${email.status.padEnd(7)}  ${email.recipient}  ${email.subject}`);
  process.stdout.write(json ? `${JSON.stringify(emails)}\n` : `${lines.join("\n") || "No emails."}\n`);
}

export async function showEmail(runtime: Runtime, json: boolean, id: string | undefined): Promise<void> {
  if (!id || !UUID4_PATTERN.test(id)) throw new UsageError("emails show takes an email id (UUID)");
  const email = await createEmailOutbox(runtime.deps).get(id);
  if (!email) throw new UsageError(`no email ${id}`);
  const detail = {
    ...summary(email),
    from: email.sender_name ? `"${email.sender_name}" <${email.sender_address}>` : email.sender_address,
    reply_to: email.reply_to,
    list_unsubscribe: email.list_unsubscribe,
    locale: email.locale,
    message_id: email.message_id,
    last_error: email.last_error,
    text: email.text,
    html: email.html,
  };
  const headers = [
    `From: ${detail.from}`,
    `To: ${email.recipient}`,
    ...(email.reply_to ? [`Reply-To: ${email.reply_to}`] : []),
    ...(email.list_unsubscribe ? [`List-Unsubscribe: ${email.list_unsubscribe}`] : []),
    `Subject: ${email.subject}`,
    `Date: ${detail.created_at}`,
    `Message-ID: ${email.message_id}`,
    `Status: ${email.status}${email.last_error ? ` (${email.last_error})` : ""}`,
  ];
  process.stdout.write(json ? `${JSON.stringify(detail)}\n` : `${headers.join("\n")}\n\n${email.text}`);
}
