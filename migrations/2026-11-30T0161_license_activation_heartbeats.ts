import { sql, type Kysely } from "kysely";

/**
 * Activations that free themselves (an extension): an activation's last heartbeat, and the
 * heartbeat terms a key carries from its benefit (like its limits). An activation of a key with an
 * interval, silent for longer than interval plus grace since its last heartbeat (or its creation),
 * is deactivated by the `license_keys:cull_activations` task.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE license_key_activations ADD COLUMN last_heartbeat_at timestamptz`.execute(db);
  await sql`ALTER TABLE license_keys ADD COLUMN heartbeat_interval_seconds integer, ADD COLUMN heartbeat_grace_seconds integer`.execute(db);
  await sql`CREATE INDEX license_keys_heartbeat ON license_keys (id) WHERE heartbeat_interval_seconds IS NOT NULL AND deleted_at IS NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX license_keys_heartbeat`.execute(db);
  await sql`ALTER TABLE license_keys DROP COLUMN heartbeat_interval_seconds, DROP COLUMN heartbeat_grace_seconds`.execute(db);
  await sql`ALTER TABLE license_key_activations DROP COLUMN last_heartbeat_at`.execute(db);
}
