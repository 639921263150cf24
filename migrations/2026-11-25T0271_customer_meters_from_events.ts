import { sql, type Kysely } from "kysely";

/**
 * Customer meters are now created by a customer's first matching event (docs/decisions.md,
 * "Customer meters and credits"); the customers whose events reached a meter's buckets before this
 * get theirs here, once, from the buckets (one row per customer and meter; a credited row is kept).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`INSERT INTO customer_meters (organization_id, customer_id, meter_id, created_at)
    SELECT c.organization_id, c.id, k.meter_id, now()
    FROM (SELECT DISTINCT meter_id, customer_key FROM meter_buckets) k
    JOIN meters m ON m.id = k.meter_id
    JOIN customers c ON c.organization_id = m.organization_id AND c.deleted_at IS NULL AND CASE
      WHEN k.customer_key LIKE 'c:%' THEN c.id = substr(k.customer_key, 3)::uuid ELSE c.external_id = substr(k.customer_key, 3) END
    ON CONFLICT (customer_id, meter_id) DO NOTHING`.execute(db);
}

/** The rows stay: they hold nothing the buckets do not, and credits may have been added since. */
export async function down(): Promise<void> {}
