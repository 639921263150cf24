import type { Deps } from "../../context.ts";
import { TemporaryMailFailure, type MailTransport } from "../../adapters/mail-transports/mail-transport.ts";
import { realTime } from "../../values/clock.ts";
import { findPendingEmailForUpdate, recordAttempt } from "./emails.repository.ts";

/** Which attempt of the send job this is, and how many it has (graphile-worker's counters). */
export interface SendAttempt {
  number: number;
  max: number;
}

export type EmailDelivery = ReturnType<typeof createEmailDelivery>;

/**
 * Sends one pending email, its row locked for the send, so two runs of the job never both send it;
 * the row turns `sent` in the same transaction, so a finished send is never repeated. A permanent
 * refusal (5xx) marks it `failed` at once; a temporary failure is recorded and thrown for the job
 * to retry later, and the last attempt's marks it `failed`. A crash between the server's acceptance
 * and the commit is the one window where a retry sends it again: with the same `Message-ID`.
 */
export function createEmailDelivery(deps: Deps, transport: MailTransport | null) {
  async function send(emailId: string, attempt: SendAttempt): Promise<void> {
    const retry = await deps.db.transaction().execute(async (trx) => {
      const email = await findPendingEmailForUpdate(trx, emailId);
      // Sent, failed or kept already (a replayed job), or a job left from a server that had SMTP_URL.
      if (!email || !transport) return null;
      try {
        const outcome = await transport.send({
          from: { name: email.sender_name, address: email.sender_address },
          to: email.recipient,
          replyTo: email.reply_to,
          listUnsubscribe: email.list_unsubscribe,
          subject: email.subject,
          html: email.html,
          text: email.text,
          messageId: email.message_id,
          date: email.created_at,
        });
        await recordAttempt(
          trx,
          emailId,
          outcome.accepted
            ? { status: "sent", lastError: null, sentAt: realTime(deps.now) }
            : { status: "failed", lastError: outcome.reason, sentAt: null },
        );
        return null;
      } catch (error) {
        if (!(error instanceof TemporaryMailFailure)) throw error;
        const last = attempt.number >= attempt.max;
        await recordAttempt(trx, emailId, { status: last ? "failed" : "pending", lastError: error.message, sentAt: null });
        return last ? null : error;
      }
    });
    // Thrown after the commit, so the attempt and its error stay recorded while the job backs off.
    if (retry) throw retry;
  }
  return { send };
}
