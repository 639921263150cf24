import { sql, type Kysely } from "kysely";

/**
 * Day rollups of the orders (docs/decisions.md, "Metrics: day rollups per whole-hour offset"): one
 * row per organization × fixed UTC offset (whole hours, −12 to +14) × the local date at that offset
 * × product × currency × kind × whether the subscription started that day × whether it is the
 * subscription's first order that day. A year by day then reads about 365 rows per series instead of
 * 8,760 hourly ones. Kept from `metric_order_facts` by statement triggers (every fact is inserted
 * or deleted, never updated, by the order rollups' functions and the rebuild), so the writing
 * transaction and the rebuild keep them alike.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE metric_order_day_rollups (
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    utc_offset smallint NOT NULL,
    day date NOT NULL,
    product_id uuid,
    currency text NOT NULL,
    subscription boolean NOT NULL,
    new_subscription boolean NOT NULL,
    first_in_day boolean NOT NULL,
    orders bigint NOT NULL,
    revenue bigint NOT NULL,
    net bigint NOT NULL,
    CONSTRAINT metric_order_day_rollups_key UNIQUE NULLS NOT DISTINCT
      (organization_id, utc_offset, day, product_id, currency, subscription, new_subscription, first_in_day)
  )`.execute(db);

  // The local day of an order's UTC hour at each whole-hour offset, and the two questions a day
  // period asks of its lags: did the subscription start that day, and did an earlier order of it
  // fall on another day? A lag is exact up to a week (longer ones are coarsened, never under a
  // week: metrics_hour_lag), so it answers both exactly.
  await sql`CREATE FUNCTION metrics_order_fact_days(hour timestamptz, subscription_id uuid, start_lag integer, prev_lag integer)
    RETURNS TABLE (utc_offset smallint, day date, new_subscription boolean, first_in_day boolean)
    LANGUAGE sql IMMUTABLE AS $$
      SELECT k::smallint, d.day,
        subscription_id IS NOT NULL AND start_lag IS NOT NULL AND (u.at + (k - start_lag) * interval '1 hour')::date = d.day,
        prev_lag IS NULL OR (u.at + (k - prev_lag) * interval '1 hour')::date <> d.day
      FROM (SELECT hour AT TIME ZONE 'UTC' AS at) u, generate_series(-12, 14) k,
        LATERAL (SELECT (u.at + k * interval '1 hour')::date AS day) d
    $$`.execute(db);

  // One grouped upsert per statement on the facts (in the order of the key, so two writers lock
  // shared rows in the same order): a bulk insert of the rebuild costs one statement, not one per row.
  await sql`CREATE FUNCTION metrics_order_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
  // The facts kept so far go through the insert trigger once, before deletes are counted.
  await sql`CREATE TEMPORARY TABLE metric_order_facts_kept AS SELECT * FROM metric_order_facts`.execute(db);
  await sql`DELETE FROM metric_order_facts`.execute(db);
  await sql`CREATE TRIGGER metrics_order_facts_inserted AFTER INSERT ON metric_order_facts
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION metrics_order_facts_changed()`.execute(db);
  await sql`INSERT INTO metric_order_facts SELECT * FROM metric_order_facts_kept`.execute(db);
  await sql`DROP TABLE metric_order_facts_kept`.execute(db);
  await sql`CREATE TRIGGER metrics_order_facts_deleted AFTER DELETE ON metric_order_facts
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION metrics_order_facts_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER metrics_order_facts_inserted ON metric_order_facts`.execute(db);
  await sql`DROP TRIGGER metrics_order_facts_deleted ON metric_order_facts`.execute(db);
  await sql`DROP FUNCTION metrics_order_facts_changed(), metrics_order_fact_days(timestamptz, uuid, integer, integer)`.execute(db);
  await sql`DROP TABLE metric_order_day_rollups`.execute(db);
}
