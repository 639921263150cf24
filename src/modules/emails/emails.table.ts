import type { Generated, Selectable } from "kysely";

/**
 * `pending`: waiting for its send job; `sent`: accepted by the mail server; `failed`: refused for
 * good (a 5xx answer) or out of attempts; `kept`: written without `SMTP_URL`, never sent, read with the CLI.
 */
export type EmailStatus = "pending" | "sent" | "failed" | "kept";

export interface EmailsTable {
  id: Generated<string>;
  created_at: Date;
  organization_id: string;
  /** The cause (`<template>:<id of what caused it>`): unique, so one cause writes one email. */
  dedupe_key: string;
  template: string;
  locale: string | null;
  /** The `From` header: the organization's name on `EMAIL_FROM`'s address. */
  sender_name: string | null;
  sender_address: string;
  recipient: string;
  /** `Reply-To`: the seller's own address on a customer's email (its `email`), so an answer reaches them. */
  reply_to: string | null;
  /** `List-Unsubscribe` (a `<mailto:…>`), on notices only: never on a receipt or a sign-in code. */
  list_unsubscribe: string | null;
  subject: string;
  html: string;
  text: string;
  /** Our own `Message-ID`, fixed when the row is written, so a resent attempt carries the same one. */
  message_id: string;
  status: EmailStatus;
  attempts: Generated<number>;
  last_error: string | null;
  sent_at: Date | null;
}
export type EmailRow = Selectable<EmailsTable>;
