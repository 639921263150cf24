import type { Deps } from "../../context.ts";
import { paginate, type Page, type PageRequest } from "../../schema/pagination.ts";
import { countOrganizationEmails, findEmail, findOrganizationEmail, listEmails, listOrganizationEmails } from "./emails.repository.ts";
import type { EmailRow, EmailStatus } from "./emails.table.ts";

/** The outbox: every email written, sent or kept, newest first; the CLI reads it all, the dashboard one organization's. */
export function createEmailOutbox(deps: Deps) {
  return {
    list: (filter: { status: EmailStatus | null; limit: number }): Promise<EmailRow[]> => listEmails(deps.db, filter),
    get: (id: string): Promise<EmailRow | undefined> => findEmail(deps.db, id),
    listOfOrganization: (organizationId: string, status: EmailStatus | null, page: PageRequest): Promise<Page<EmailRow>> =>
      paginate(
        page,
        () => countOrganizationEmails(deps.readDb, organizationId, status),
        (offset, limit) => listOrganizationEmails(deps.readDb, { organizationId, status, offset, limit }),
      ),
    getOfOrganization: (organizationId: string, id: string): Promise<EmailRow | undefined> =>
      findOrganizationEmail(deps.readDb, organizationId, id),
  };
}
export type EmailOutbox = ReturnType<typeof createEmailOutbox>;
