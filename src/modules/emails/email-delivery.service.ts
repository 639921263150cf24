import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { TemporaryMailFailure, type MailOutcome, type MailTransport } from "../../adapters/mail-transports/mail-transport.ts";
import { countEmailSends, type EmailSendResult } from "../../observability/operation-counters.ts";
import { realTime } from "../../values/clock.ts";
import { claimFreshPendingEmails, findPendingEmailForUpdate, recordAttempt } from "./emails.repository.ts";
import type { EmailRow } from "./emails.table.ts";

/** Which attempt of the send job this is, and how many it has (graphile-worker's counters). */
export interface SendAttempt {
  number: number;
  max: number;
}

export type EmailDelivery = ReturnType<typeof createEmailDelivery>;

/**
 * How many emails one send job sends at most: its own and the burst's others never tried, over the
 * transport's pooled connections. Enough that a burst goes at the mail server's pace rather than one
 * job (and one transaction) per email; few enough that the row locks are held for seconds, not minutes.
 */
export const SEND_BATCH = 25;

/**
 * Sends one pending email, its row locked for the send, so two runs of the job never both send it;
 * the row turns `sent` in the same transaction, so a finished send is never repeated. A permanent
 * refusal (5xx) marks it `failed` at once; a temporary failure is recorded and thrown for the job
 * to retry later, and the last attempt's marks it `failed`. A crash between the server's acceptance
 * and the commit is the one window where a retry sends it again: with the same `Message-ID`.
 *
 * Along with its own email the job takes other pending emails never tried (`SEND_BATCH` in all,
 * skipping rows another send holds) and sends them side by side in the same transaction: sent or
 * refused for good, they are marked so, and their own jobs find nothing pending; any other failure
 * of one of them records nothing, so its own job tries it with the usual retries and backoff.
 */
export function createEmailDelivery(deps: Deps, transport: MailTransport | null) {
  /** One send's outcome, or what went wrong: every send of a batch settles before any is recorded. */
  async function attempt(mail: MailTransport, email: EmailRow): Promise<MailOutcome | Error> {
    try {
      return await mail.send({
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
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Records a final outcome (sent, or refused for good). */
  const recordOutcome = (trx: Executor, id: string, outcome: MailOutcome) =>
    recordAttempt(
      trx,
      id,
      outcome.accepted
        ? { status: "sent", lastError: null, sentAt: realTime(deps.now) }
        : { status: "failed", lastError: outcome.reason, sentAt: null },
    );

  async function send(emailId: string, job: SendAttempt): Promise<void> {
    // What this run recorded, counted once it commits.
    let recorded: EmailSendResult[] = [];
    const record = async (trx: Executor, id: string, outcome: MailOutcome) => {
      await recordOutcome(trx, id, outcome);
      recorded.push(outcome.accepted ? "sent" : "failed");
    };
    const retry = await deps.db.transaction().execute(async (trx) => {
      recorded = [];
      const email = await findPendingEmailForUpdate(trx, emailId);
      // Sent, failed or kept already (a replayed job, or taken along by another job's batch), or a
      // job left from a server that had SMTP_URL.
      if (!email || !transport) return null;
      const others = await claimFreshPendingEmails(trx, emailId, SEND_BATCH - 1);
      const [own, ...taken] = await Promise.all([email, ...others].map((row) => attempt(transport, row)));
      for (const [index, outcome] of taken.entries()) {
        if (!(outcome instanceof Error)) await record(trx, others[index]!.id, outcome);
      }
      if (!(own instanceof Error)) {
        await record(trx, emailId, own!);
        return null;
      }
      // Not the mail server's answer (a bug, say): nothing recorded of it, the job retries.
      if (!(own instanceof TemporaryMailFailure)) return own;
      const last = job.number >= job.max;
      await recordAttempt(trx, emailId, { status: last ? "failed" : "pending", lastError: own.message, sentAt: null });
      recorded.push(last ? "failed" : "retrying");
      return last ? null : own;
    });
    for (const result of recorded) countEmailSends(result);
    // Thrown after the commit, so the attempt and its error stay recorded while the job backs off.
    if (retry) throw retry;
  }
  return { send };
}
