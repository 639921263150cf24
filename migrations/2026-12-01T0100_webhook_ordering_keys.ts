import { sql, type Kysely } from "kysely";

/**
 * Delivery ordered per object instead of per endpoint: each event names the object it is about
 * (`ordering_key`), and an endpoint's copy of it waits only for the earlier undelivered events of
 * that object. Events recorded before this migration share the empty key, so among themselves
 * they keep the old first-in-first-out order of their endpoint.
 *
 * `holds_order` is false for a copy that later events of its object no longer wait for: one set
 * aside after repeated refusals by an endpoint that accepts other deliveries, or a redelivery.
 * `first_failed_at` is the first failed attempt of its current schedule.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_events ADD COLUMN ordering_key text NOT NULL DEFAULT ''`.execute(db);
  await sql`ALTER TABLE webhook_endpoint_events
    ADD COLUMN ordering_key text NOT NULL DEFAULT '',
    ADD COLUMN holds_order boolean NOT NULL DEFAULT true,
    ADD COLUMN first_failed_at timestamptz`.execute(db);
  // The delivery loop's question: is there an earlier undelivered event of this object that holds it back?
  await sql`CREATE INDEX webhook_endpoint_events_holding_idx ON webhook_endpoint_events (endpoint_id, ordering_key, sequence)
    WHERE status = 'pending' AND holds_order`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS webhook_endpoint_events_holding_idx`.execute(db);
  await sql`ALTER TABLE webhook_endpoint_events DROP COLUMN first_failed_at, DROP COLUMN holds_order, DROP COLUMN ordering_key`.execute(db);
  await sql`ALTER TABLE webhook_events DROP COLUMN ordering_key`.execute(db);
}
