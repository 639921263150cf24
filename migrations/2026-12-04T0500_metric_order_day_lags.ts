import { sql, type Kysely } from "kysely";

/**
 * The order day rollups keep day lags instead of two day booleans (docs/decisions.md, "Metrics:
 * weeks, months and years from the day rollups"): the subscription's start and its previous order
 * as local dates at the row's offset, so a week, month or year whose two midnights share one
 * offset is the sum of that offset's day rows, "new" and "renewed" included. A date at least a week
 * before the order's day can share only its month or year with it: it is kept as the month's first
 * day (same month), 1 January (same year, another month) or null (another year), so the renewals
 * of a day share a few keys. The day rows are rewritten from the facts.
 */
const KEY = ["organization_id", "utc_offset", "day", "product_id", "currency", "subscription"];

/** The statement trigger of the facts (as in 2026-12-02T0800), for the given day columns and their function. */
const factsChanged = (columns: readonly string[], days: string) =>
  sql.raw(`CREATE OR REPLACE FUNCTION metrics_order_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE sign integer := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    BEGIN
      -- MATERIALIZED: the slot is taken once per organization of the statement, not once per fact.
      WITH slots AS MATERIALIZED (
        SELECT o.organization_id, metrics_rollup_slot('metric_order_day_rollups|' || o.organization_id) AS slot
        FROM (SELECT DISTINCT organization_id FROM changed) o
      )
      INSERT INTO metric_order_day_rollups AS r (${[...KEY, ...columns, "slot"].join(", ")}, orders, revenue, net)
      SELECT f.organization_id, d.utc_offset, d.day, f.product_id, f.currency, f.subscription_id IS NOT NULL,
        ${columns.map((column) => `d.${column}`).join(", ")}, s.slot, sign * count(*), sign * sum(f.revenue), sign * sum(f.net)
      FROM changed f JOIN slots s USING (organization_id)
        CROSS JOIN LATERAL ${days}(f.hour, f.subscription_id, f.start_lag, f.prev_lag) d
      GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
      ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
      ON CONFLICT ON CONSTRAINT metric_order_day_rollups_key DO UPDATE
        SET orders = r.orders + EXCLUDED.orders, revenue = r.revenue + EXCLUDED.revenue, net = r.net + EXCLUDED.net;
      RETURN NULL;
    END $$`);

/** The day rows rewritten from every fact (slot 0), keyed by the given day columns. */
async function rewrite(db: Kysely<unknown>, drop: readonly [string, string], add: readonly [string, string], days: string) {
  await sql`DELETE FROM metric_order_day_rollups`.execute(db);
  await sql
    .raw(
      `ALTER TABLE metric_order_day_rollups DROP CONSTRAINT metric_order_day_rollups_key,
    DROP COLUMN ${drop[0]}, DROP COLUMN ${drop[1]}, ADD COLUMN ${add[0]}, ADD COLUMN ${add[1]}`,
    )
    .execute(db);
  const columns = [add[0].split(" ")[0]!, add[1].split(" ")[0]!];
  await sql
    .raw(
      `ALTER TABLE metric_order_day_rollups ADD CONSTRAINT metric_order_day_rollups_key UNIQUE NULLS NOT DISTINCT
    (${[...KEY, ...columns, "slot"].join(", ")})`,
    )
    .execute(db);
  await factsChanged(columns, days).execute(db);
  await sql
    .raw(
      `INSERT INTO metric_order_day_rollups (${[...KEY, ...columns, "slot"].join(", ")}, orders, revenue, net)
    SELECT f.organization_id, d.utc_offset, d.day, f.product_id, f.currency, f.subscription_id IS NOT NULL,
      ${columns.map((column) => `d.${column}`).join(", ")}, 0, count(*), sum(f.revenue), sum(f.net)
    FROM metric_order_facts f CROSS JOIN LATERAL ${days}(f.hour, f.subscription_id, f.start_lag, f.prev_lag) d
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
    )
    .execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // A local date `at` against the order's local date `day`: exact within the week before (or any
  // time after), else only what a month or a year can still ask of it.
  await sql`CREATE FUNCTION metrics_day_lag(day date, at date) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
      WHEN at IS NULL OR at > day - 7 THEN at
      WHEN date_trunc('month', at) = date_trunc('month', day) THEN date_trunc('month', at)::date
      WHEN date_trunc('year', at) = date_trunc('year', day) THEN date_trunc('year', at)::date
    END
  $$`.execute(db);
  // The hourly facts' lags are exact up to a week and keep the month (the year past a month) in every
  // zone from −12 to +14 beyond it (metrics_hour_lag), so the local dates at each offset keep them too.
  await sql`CREATE FUNCTION metrics_order_fact_day_lags(hour timestamptz, subscription_id uuid, start_lag integer, prev_lag integer)
    RETURNS TABLE (utc_offset smallint, day date, start_day date, prev_day date)
    LANGUAGE sql IMMUTABLE AS $$
      SELECT k::smallint, d.day,
        CASE WHEN subscription_id IS NOT NULL THEN metrics_day_lag(d.day, (u.at + (k - start_lag) * interval '1 hour')::date) END,
        metrics_day_lag(d.day, (u.at + (k - prev_lag) * interval '1 hour')::date)
      FROM (SELECT hour AT TIME ZONE 'UTC' AS at) u, generate_series(-12, 14) k,
        LATERAL (SELECT (u.at + k * interval '1 hour')::date AS day) d
    $$`.execute(db);
  await rewrite(db, ["new_subscription", "first_in_day"], ["start_day date", "prev_day date"], "metrics_order_fact_day_lags");
  await sql`DROP FUNCTION metrics_order_fact_days(timestamptz, uuid, integer, integer)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE FUNCTION metrics_order_fact_days(hour timestamptz, subscription_id uuid, start_lag integer, prev_lag integer)
    RETURNS TABLE (utc_offset smallint, day date, new_subscription boolean, first_in_day boolean)
    LANGUAGE sql IMMUTABLE AS $$
      SELECT k::smallint, d.day,
        subscription_id IS NOT NULL AND start_lag IS NOT NULL AND (u.at + (k - start_lag) * interval '1 hour')::date = d.day,
        prev_lag IS NULL OR (u.at + (k - prev_lag) * interval '1 hour')::date <> d.day
      FROM (SELECT hour AT TIME ZONE 'UTC' AS at) u, generate_series(-12, 14) k,
        LATERAL (SELECT (u.at + k * interval '1 hour')::date AS day) d
    $$`.execute(db);
  await rewrite(
    db,
    ["start_day", "prev_day"],
    ["new_subscription boolean NOT NULL", "first_in_day boolean NOT NULL"],
    "metrics_order_fact_days",
  );
  await sql`DROP FUNCTION metrics_order_fact_day_lags(timestamptz, uuid, integer, integer), metrics_day_lag(date, date)`.execute(db);
}
