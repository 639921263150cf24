import { sql, type Kysely, type RawBuilder } from "kysely";

/**
 * `new_subscriptions` by week, month and year from its day rollups (docs/decisions.md, "Metrics:
 * new subscriptions by week, month and year from day rollups"). A day row counted the subscriptions
 * created that local date whose scheduled end has another date; a week, month or year also leaves
 * out those whose end falls in the same week, month or year. Three booleans in the key tell which
 * (`end_same_week`, `end_same_month`, `end_same_year`, judged at the row's offset against the
 * creation's date): a day's creations fall on at most six combinations, and those ending the same
 * day, which no period counts, are still not stored.
 */
const key = sql`(organization_id, utc_offset, day, end_same_week, end_same_month, end_same_year, slot)`;

/** The day rows' writer: each changed row's (offset, date, booleans) with its sign, one grouped upsert ordered by the key. */
const adder = (columns: RawBuilder<unknown>, days: RawBuilder<unknown>) => sql`
  CREATE OR REPLACE FUNCTION metrics_add_new_subscriptions(organization_ids uuid[], created timestamptz[], ends timestamptz[], signs integer[])
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      WITH changed AS (
        SELECT * FROM unnest(organization_ids, created, ends, signs) c(organization_id, created_at, ends_at, sign)
      ), slots AS MATERIALIZED (
        SELECT o.organization_id, metrics_rollup_slot('metric_subscription_day_rollups|' || o.organization_id) AS slot
        FROM (SELECT DISTINCT organization_id FROM changed) o
      )
      INSERT INTO metric_subscription_new_day_rollups AS r (${columns}, created)
      SELECT c.organization_id, ${days}, s.slot, sum(c.sign)
      FROM changed c JOIN slots s USING (organization_id) CROSS JOIN LATERAL metric_subscription_new_days(c.created_at, c.ends_at) d
      GROUP BY ${columns}
      HAVING sum(c.sign) <> 0
      ORDER BY ${columns}
      ON CONFLICT ON CONSTRAINT metric_subscription_new_day_rollups_key DO UPDATE SET created = r.created + EXCLUDED.created;
    END $$`;

/** Rewrites the day rows from the view, under the locks the rebuild takes (the facts first, as the writers do). */
async function rewrite(db: Kysely<unknown>, columns: RawBuilder<unknown>) {
  await sql`LOCK TABLE metric_subscription_facts, metric_subscription_day_rollups, metric_subscription_new_day_rollups IN EXCLUSIVE MODE`.execute(
    db,
  );
  await sql`DELETE FROM metric_subscription_new_day_rollups`.execute(db);
  await sql`INSERT INTO metric_subscription_new_day_rollups (${columns}, created)
    SELECT ${columns}, created FROM (SELECT *, 0 AS slot FROM metric_subscription_new_day_source) v`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP VIEW metric_subscription_new_day_source`.execute(db);
  await sql`DROP FUNCTION metric_subscription_new_days(timestamptz, timestamptz)`.execute(db);
  // At each whole-hour offset: the creation's date, unless the end has the same date there, and
  // whether the end's date shares the creation's week, month and year there.
  await sql`CREATE FUNCTION metric_subscription_new_days(created_at timestamptz, ends_at timestamptz)
    RETURNS TABLE (utc_offset smallint, day date, end_same_week boolean, end_same_month boolean, end_same_year boolean)
    LANGUAGE sql STABLE AS $$
      SELECT k::smallint, d.created,
        coalesce(date_trunc('week', d.ends) = date_trunc('week', d.created), false),
        coalesce(date_trunc('month', d.ends) = date_trunc('month', d.created), false),
        coalesce(date_trunc('year', d.ends) = date_trunc('year', d.created), false)
      FROM generate_series(-12, 14) k,
        LATERAL (SELECT (($1 AT TIME ZONE 'UTC') + k * interval '1 hour')::date AS created,
                        (($2 AT TIME ZONE 'UTC') + k * interval '1 hour')::date AS ends) d
      WHERE d.ends IS DISTINCT FROM d.created
    $$`.execute(db);
  await sql`CREATE VIEW metric_subscription_new_day_source AS
    SELECT s.organization_id, d.utc_offset, d.day, d.end_same_week, d.end_same_month, d.end_same_year, count(*) AS created
    FROM subscriptions s CROSS JOIN LATERAL metric_subscription_new_days(s.created_at, s.ends_at) d
    GROUP BY 1, 2, 3, 4, 5, 6`.execute(db);
  await sql`ALTER TABLE metric_subscription_new_day_rollups
    ADD COLUMN end_same_week boolean NOT NULL DEFAULT false,
    ADD COLUMN end_same_month boolean NOT NULL DEFAULT false,
    ADD COLUMN end_same_year boolean NOT NULL DEFAULT false,
    DROP CONSTRAINT metric_subscription_new_day_rollups_key,
    ADD CONSTRAINT metric_subscription_new_day_rollups_key UNIQUE ${key}`.execute(db);
  await adder(
    sql`organization_id, utc_offset, day, end_same_week, end_same_month, end_same_year, slot`,
    sql`d.utc_offset, d.day, d.end_same_week, d.end_same_month, d.end_same_year`,
  ).execute(db);
  // A period across a DST change corrects the rows by the subscriptions ending in the hour between its
  // end and its start offset's midnight: found by their end.
  await sql`CREATE INDEX subscriptions_org_ends_idx ON subscriptions (organization_id, ends_at) INCLUDE (created_at)`.execute(db);
  await rewrite(db, sql`organization_id, utc_offset, day, end_same_week, end_same_month, end_same_year, slot`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX subscriptions_org_ends_idx`.execute(db);
  await sql`DROP VIEW metric_subscription_new_day_source`.execute(db);
  await sql`DROP FUNCTION metric_subscription_new_days(timestamptz, timestamptz)`.execute(db);
  await sql`CREATE FUNCTION metric_subscription_new_days(created_at timestamptz, ends_at timestamptz)
    RETURNS TABLE (utc_offset smallint, day date) LANGUAGE sql STABLE AS $$
      SELECT k::smallint, d.created
      FROM generate_series(-12, 14) k,
        LATERAL (SELECT (($1 AT TIME ZONE 'UTC') + k * interval '1 hour')::date AS created,
                        (($2 AT TIME ZONE 'UTC') + k * interval '1 hour')::date AS ends) d
      WHERE d.ends IS DISTINCT FROM d.created
    $$`.execute(db);
  await sql`CREATE VIEW metric_subscription_new_day_source AS
    SELECT s.organization_id, d.utc_offset, d.day, count(*) AS created
    FROM subscriptions s CROSS JOIN LATERAL metric_subscription_new_days(s.created_at, s.ends_at) d
    GROUP BY 1, 2, 3`.execute(db);
  await sql`DELETE FROM metric_subscription_new_day_rollups`.execute(db);
  await sql`ALTER TABLE metric_subscription_new_day_rollups
    DROP CONSTRAINT metric_subscription_new_day_rollups_key,
    DROP COLUMN end_same_week, DROP COLUMN end_same_month, DROP COLUMN end_same_year,
    ADD CONSTRAINT metric_subscription_new_day_rollups_key UNIQUE (organization_id, utc_offset, day, slot)`.execute(db);
  await adder(sql`organization_id, utc_offset, day, slot`, sql`d.utc_offset, d.day`).execute(db);
  await rewrite(db, sql`organization_id, utc_offset, day, slot`);
}
