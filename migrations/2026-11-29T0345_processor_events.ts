import { sql, type Kysely } from "kysely";

/**
 * The payment processor's events (Stripe's webhooks), each stored once by its id before it is acted
 * on: `unique (source, external_id)` makes a redelivered or duplicated event a no-op, and
 * `handled_at` is set in the transaction of what the event changed. Handled rows are pruned after 30 days.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE processor_events (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    source text NOT NULL,
    external_id text NOT NULL,
    type text NOT NULL,
    payload jsonb NOT NULL,
    received_at timestamptz NOT NULL,
    handled_at timestamptz,
    UNIQUE (source, external_id)
  )`.execute(db);
  await sql`CREATE INDEX processor_events_handled_at ON processor_events (handled_at) WHERE handled_at IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE processor_events`.execute(db);
}
