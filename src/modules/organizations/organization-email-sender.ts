import type { Executor } from "../../db/database.ts";
import { emailSenderOf } from "./organizations.mapper.ts";
import { findEmailSender } from "./organizations.repository.ts";
import type { OrganizationEmailSender } from "./organizations.schemas.ts";

/**
 * The sender the organization set for its emails (`PATCH /v1/organizations/{id}` `email_sender`):
 * its address, its display name (null: the organization's name) and its Reply-To (null: the
 * organization's support email); null when it set none (or is unknown), so `EMAIL_FROM` applies.
 */
export async function organizationEmailSender(db: Executor, organizationId: string): Promise<OrganizationEmailSender | null> {
  const row = await findEmailSender(db, organizationId);
  return row ? emailSenderOf(row) : null;
}
