import { sql, type Kysely } from "kysely";

/**
 * Slots for the day rollups too (docs/decisions.md, "Metrics: day rollup slots"). Every order of
 * an organization's product on one day adds to the same 27 day rows (one per whole-hour offset),
 * held until its transaction commits: a launch's concurrent checkouts would queue on them as they
 * did on the hourly row before its slots. Here the slot is taken per organization and transaction
 * (one try-lock that never waits, kept to the commit), so concurrent writers of one organization
 * write disjoint rows; reads already sum a day's rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE metric_order_day_rollups ADD COLUMN slot smallint NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE metric_order_day_rollups DROP CONSTRAINT metric_order_day_rollups_key`.execute(db);
  await sql`ALTER TABLE metric_order_day_rollups ADD CONSTRAINT metric_order_day_rollups_key UNIQUE NULLS NOT DISTINCT
    (organization_id, utc_offset, day, product_id, currency, subscription, new_subscription, first_in_day, slot)`.execute(db);
  // The first of 16 slots whose transaction-scoped try-lock this transaction gets (advisory locks are
  // re-entrant, so a transaction writing again gets its own slot back); with all 16 held, slot 0,
  // whose row lock then waits as every write did before.
  await sql`CREATE FUNCTION metrics_rollup_slot(key text) RETURNS smallint LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      FOR candidate IN 0..15 LOOP
        IF pg_try_advisory_xact_lock(hashtextextended(key, candidate)) THEN
          RETURN candidate;
        END IF;
      END LOOP;
      RETURN 0;
    END $$`.execute(db);
  await sql`CREATE OR REPLACE FUNCTION metrics_order_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE sign integer := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    BEGIN
      -- MATERIALIZED: the slot is taken once per organization of the statement, not once per fact.
      WITH slots AS MATERIALIZED (
        SELECT o.organization_id, metrics_rollup_slot('metric_order_day_rollups|' || o.organization_id) AS slot
        FROM (SELECT DISTINCT organization_id FROM changed) o
      )
      INSERT INTO metric_order_day_rollups AS r
        (organization_id, utc_offset, day, product_id, currency, subscription, new_subscription, first_in_day, slot, orders, revenue, net)
      SELECT f.organization_id, d.utc_offset, d.day, f.product_id, f.currency, f.subscription_id IS NOT NULL, d.new_subscription,
        d.first_in_day, s.slot, sign * count(*), sign * sum(f.revenue), sign * sum(f.net)
      FROM changed f JOIN slots s USING (organization_id)
        CROSS JOIN LATERAL metrics_order_fact_days(f.hour, f.subscription_id, f.start_lag, f.prev_lag) d
      GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
      ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
      ON CONFLICT ON CONSTRAINT metric_order_day_rollups_key DO UPDATE
        SET orders = r.orders + EXCLUDED.orders, revenue = r.revenue + EXCLUDED.revenue, net = r.net + EXCLUDED.net;
      RETURN NULL;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE OR REPLACE FUNCTION metrics_order_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE sign integer := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    BEGIN
      INSERT INTO metric_order_day_rollups AS r
        (organization_id, utc_offset, day, product_id, currency, subscription, new_subscription, first_in_day, orders, revenue, net)
      SELECT f.organization_id, d.utc_offset, d.day, f.product_id, f.currency, f.subscription_id IS NOT NULL, d.new_subscription,
        d.first_in_day, sign * count(*), sign * sum(f.revenue), sign * sum(f.net)
      FROM changed f CROSS JOIN LATERAL metrics_order_fact_days(f.hour, f.subscription_id, f.start_lag, f.prev_lag) d
      GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
      ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
      ON CONFLICT ON CONSTRAINT metric_order_day_rollups_key DO UPDATE
        SET orders = r.orders + EXCLUDED.orders, revenue = r.revenue + EXCLUDED.revenue, net = r.net + EXCLUDED.net;
      RETURN NULL;
    END $$`.execute(db);
  await sql`DROP FUNCTION metrics_rollup_slot(text)`.execute(db);
  // The slots folded into slot 0, one row per key again.
  await sql`CREATE TEMPORARY TABLE folded AS
    SELECT organization_id, utc_offset, day, product_id, currency, subscription, new_subscription, first_in_day,
      sum(orders) AS orders, sum(revenue) AS revenue, sum(net) AS net
    FROM metric_order_day_rollups GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`.execute(db);
  await sql`DELETE FROM metric_order_day_rollups`.execute(db);
  await sql`ALTER TABLE metric_order_day_rollups DROP CONSTRAINT metric_order_day_rollups_key, DROP COLUMN slot`.execute(db);
  await sql`INSERT INTO metric_order_day_rollups
    (organization_id, utc_offset, day, product_id, currency, subscription, new_subscription, first_in_day, orders, revenue, net)
    SELECT * FROM folded`.execute(db);
  await sql`DROP TABLE folded`.execute(db);
  await sql`ALTER TABLE metric_order_day_rollups ADD CONSTRAINT metric_order_day_rollups_key UNIQUE NULLS NOT DISTINCT
    (organization_id, utc_offset, day, product_id, currency, subscription, new_subscription, first_in_day)`.execute(db);
}
