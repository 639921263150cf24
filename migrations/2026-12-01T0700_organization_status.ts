import { sql, type Kysely } from "kysely";

/**
 * An organization's review status, the hosted service's `status`: set by the operator (an organization
 * under review, denied or blocked), `active` for all until then. Off-session charges read it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE organizations ADD COLUMN status text NOT NULL DEFAULT 'active'
    CHECK (status IN ('created', 'review', 'snoozed', 'denied', 'active', 'blocked', 'offboarding', 'offboarded'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE organizations DROP COLUMN status`.execute(db);
}
