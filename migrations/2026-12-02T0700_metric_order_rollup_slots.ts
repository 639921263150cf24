import { sql, type Kysely } from "kysely";

/**
 * Slots for the order rollups (docs/decisions.md, "Metrics: order rollup slots"). A rollup row was
 * one per organization × hour × product × currency × kind × lags, so every order of one product in
 * one hour updated the same row and held its lock until its transaction committed: a launch's
 * concurrent checkouts completed one at a time from their order's insert to their commit. Now a key
 * has up to 16 rows (`slot`); a write adds to the first slot no other open transaction is adding
 * to (a transaction-scoped try-lock per key and slot, which never waits), so concurrent writers of
 * one key each take their own row. Reads already sum the rows of a period, so they read the slots'
 * sum, exact as before; quiet writes all land in slot 0, and the rebuild writes slot 0 only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE metric_order_rollups ADD COLUMN slot smallint NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE metric_order_rollups DROP CONSTRAINT metric_order_rollups_key`.execute(db);
  // The same name, so an upsert written against the constraint (slot 0 by default) still finds it.
  await sql`ALTER TABLE metric_order_rollups ADD CONSTRAINT metric_order_rollups_key
    UNIQUE NULLS NOT DISTINCT (organization_id, hour, product_id, currency, subscription, start_lag, prev_lag, slot)`.execute(db);
  // The try-locks are keyed by the rollup key's text and the slot (hashtextextended's seed); a hash
  // collision with another key only moves a write to the next slot. With all 16 taken the write
  // waits on slot 0's row, as every write did before.
  await sql`CREATE OR REPLACE FUNCTION metrics_add_order_fact(f metric_order_facts, sign integer) RETURNS void
    LANGUAGE plpgsql AS $$
      DECLARE
        key text := concat_ws('|', 'metric_order_rollups', f.organization_id, extract(epoch FROM f.hour), f.product_id, f.currency,
          f.subscription_id IS NOT NULL, coalesce(f.start_lag::text, '-'), coalesce(f.prev_lag::text, '-'));
        chosen smallint := 0;
      BEGIN
        FOR candidate IN 0..15 LOOP
          IF pg_try_advisory_xact_lock(hashtextextended(key, candidate)) THEN
            chosen := candidate;
            EXIT;
          END IF;
        END LOOP;
        INSERT INTO metric_order_rollups AS r
          (organization_id, hour, product_id, currency, subscription, start_lag, prev_lag, slot, orders, revenue, net)
        VALUES (f.organization_id, f.hour, f.product_id, f.currency, f.subscription_id IS NOT NULL, f.start_lag, f.prev_lag,
          chosen, sign, sign * f.revenue, sign * f.net)
        ON CONFLICT ON CONSTRAINT metric_order_rollups_key DO UPDATE
          SET orders = r.orders + EXCLUDED.orders, revenue = r.revenue + EXCLUDED.revenue, net = r.net + EXCLUDED.net;
      END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION metrics_add_order_fact(metric_order_facts, integer)`.execute(db);
  await sql`CREATE FUNCTION metrics_add_order_fact(f metric_order_facts, sign integer) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO metric_order_rollups AS r
        (organization_id, hour, product_id, currency, subscription, start_lag, prev_lag, orders, revenue, net)
      VALUES (f.organization_id, f.hour, f.product_id, f.currency, f.subscription_id IS NOT NULL, f.start_lag, f.prev_lag,
        sign, sign * f.revenue, sign * f.net)
      ON CONFLICT ON CONSTRAINT metric_order_rollups_key DO UPDATE
        SET orders = r.orders + EXCLUDED.orders, revenue = r.revenue + EXCLUDED.revenue, net = r.net + EXCLUDED.net
    $$`.execute(db);
  // The slots folded into slot 0, one row per key again.
  await sql`CREATE TEMPORARY TABLE folded AS
    SELECT organization_id, hour, product_id, currency, subscription, start_lag, prev_lag, sum(orders) AS orders,
      sum(revenue) AS revenue, sum(net) AS net
    FROM metric_order_rollups GROUP BY organization_id, hour, product_id, currency, subscription, start_lag, prev_lag`.execute(db);
  await sql`DELETE FROM metric_order_rollups`.execute(db);
  await sql`ALTER TABLE metric_order_rollups DROP CONSTRAINT metric_order_rollups_key, DROP COLUMN slot`.execute(db);
  await sql`INSERT INTO metric_order_rollups SELECT organization_id, hour, product_id, currency, subscription, start_lag, prev_lag,
    orders, revenue, net FROM folded`.execute(db);
  await sql`DROP TABLE folded`.execute(db);
  await sql`ALTER TABLE metric_order_rollups ADD CONSTRAINT metric_order_rollups_key
    UNIQUE NULLS NOT DISTINCT (organization_id, hour, product_id, currency, subscription, start_lag, prev_lag)`.execute(db);
}
