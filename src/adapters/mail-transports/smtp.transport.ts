import nodemailer from "nodemailer";
import type { SmtpConfig } from "../../email-config.ts";
import { inSpan } from "../../observability/spans.ts";
import { TemporaryMailFailure, type MailOutcome, type MailTransport, type OutgoingEmail } from "./mail-transport.ts";

/** nodemailer's error fields this transport reads: the SMTP reply code and text, or the socket's error code. */
interface SmtpError {
  responseCode?: number;
  response?: string;
  code?: string;
  message?: string;
}

const fieldsOf = (error: unknown): SmtpError => (typeof error === "object" && error !== null ? error : {});

/**
 * The SMTP server of `SMTP_URL`, through nodemailer (one pooled connection set per process). Timeouts
 * are short: the send job holds its email's row lock while it waits.
 */
export function createSmtpTransport(smtp: SmtpConfig): MailTransport {
  const transporter = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.pass } } : {}),
    pool: true,
    maxConnections: 4,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  // What is stored as the row's last error never carries the password, whatever the server echoes.
  const scrub = (text: string) => (smtp.auth?.pass ? text.split(smtp.auth.pass).join("[REDACTED]") : text).slice(0, 500);
  return {
    send: (email: OutgoingEmail): Promise<MailOutcome> =>
      // nodemailer speaks SMTP on its own sockets, which no instrumentation sees.
      inSpan("smtp send", { role: "client", attributes: { "server.address": smtp.host, "server.port": smtp.port } }, async (annotate) => {
        try {
          const info = await transporter.sendMail({
            from: email.from.name ? { name: email.from.name, address: email.from.address } : email.from.address,
            to: email.to,
            ...(email.replyTo ? { replyTo: email.replyTo } : {}),
            ...(email.listUnsubscribe ? { headers: { "List-Unsubscribe": email.listUnsubscribe } } : {}),
            subject: email.subject,
            html: email.html,
            text: email.text,
            messageId: email.messageId,
            date: email.date,
          });
          annotate({ "smtp.accepted": true });
          return { accepted: true, serverResponse: scrub(String(info.response ?? "")) };
        } catch (error) {
          const { responseCode, response, code, message } = fieldsOf(error);
          const reason = scrub(response ?? ([code, message].filter(Boolean).join(": ") || "mail server unreachable"));
          // Only a refusal of this recipient or this message is final; a refused login or greeting is
          // the server's configuration, and the email goes once it is fixed.
          const refusedForGood = (code === "EENVELOPE" || code === "EMESSAGE") && (responseCode === undefined || responseCode >= 500);
          if (refusedForGood) {
            annotate({ "smtp.accepted": false });
            return { accepted: false, reason };
          }
          throw new TemporaryMailFailure(reason);
        }
      }),
    close: () => transporter.close(),
  };
}
