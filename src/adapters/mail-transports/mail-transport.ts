import type { Mailbox } from "../../email-config.ts";

/** One email as the transport hands it to the mail server: both parts and the headers fixed by the outbox. */
export interface OutgoingEmail {
  from: Mailbox;
  to: string;
  replyTo: string | null;
  /** `<mailto:…>` for `List-Unsubscribe`, on notices only. */
  listUnsubscribe: string | null;
  subject: string;
  html: string;
  text: string;
  /** `<id@domain>`, the same on every attempt of one email. */
  messageId: string;
  date: Date;
}

/**
 * What the mail server said: accepted (with its answer), or refused for good (a 5xx answer to the
 * recipient or the message: it will never be taken). A failure that may pass (no connection, a 4xx
 * answer, a timeout, a refused login) is thrown as `TemporaryMailFailure`, for the job to retry.
 */
export type MailOutcome = { accepted: true; serverResponse: string } | { accepted: false; reason: string };

export class TemporaryMailFailure extends Error {}

export interface MailTransport {
  send(email: OutgoingEmail): Promise<MailOutcome>;
  close(): void;
}
