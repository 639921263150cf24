import type { Generated, Selectable } from "kysely";

/** A code asked for by email, or a link an email carries. */
export type PortalSignInKind = "code" | "link";

/** A way into the portal without a session, used once: see migrations/2026-11-29T0750_portal_sign_ins.ts. */
export interface PortalSignInsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  organization_id: string;
  customer_id: string;
  kind: PortalSignInKind;
  /** HMAC of the code or link token: the secret itself is only in the email. */
  secret_hash: string;
  /** The address the email went to. */
  email: string;
  /** Where a link opens the portal (a path below it, with its fragment); null for codes. */
  target_path: string | null;
  /** HMAC of the address of the client that asked for a code; null for links. */
  requester_hash: string | null;
  failed_attempts: Generated<number>;
  expires_at: Date;
}
export type PortalSignInRow = Selectable<PortalSignInsTable>;
