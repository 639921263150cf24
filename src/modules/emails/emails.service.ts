import type { Deps } from "../../context.ts";
import { findEmail, listEmails } from "./emails.repository.ts";
import type { EmailRow, EmailStatus } from "./emails.table.ts";

/** The outbox as the CLI reads it: every email written, sent or kept, newest first. */
export function createEmailOutbox(deps: Deps) {
  return {
    list: (filter: { status: EmailStatus | null; limit: number }): Promise<EmailRow[]> => listEmails(deps.db, filter),
    get: (id: string): Promise<EmailRow | undefined> => findEmail(deps.db, id),
  };
}
