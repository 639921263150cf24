import type { ParsedMail } from "mailparser";
import type { TestContext } from "../../helpers/context.ts";
import type { TestSmtpServer } from "../../helpers/smtp-server.ts";
import { runEmailJobs } from "../emails/email-helpers.ts";

/** The messages the SMTP server received for one address, oldest first. */
export const mailsTo = (smtp: TestSmtpServer, address: string): ParsedMail[] =>
  smtp.received.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === address);

/** Sends what is queued, then reads the code of the newest sign-in email to the address, as a customer reads it. */
export async function codeFromLatestEmail(ctx: TestContext, smtp: TestSmtpServer, address: string): Promise<string> {
  await runEmailJobs(ctx);
  const mails = mailsTo(smtp, address);
  const text = mails[mails.length - 1]?.text ?? "";
  const code = /^([A-Z0-9]{6})$/m.exec(text)?.[1];
  if (!code) throw new Error(`no sign-in code in the email to ${address}: ${text}`);
  return code;
}
