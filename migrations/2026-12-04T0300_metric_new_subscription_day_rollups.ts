import { sql, type Kysely } from "kysely";

/**
 * `new_subscriptions` by day from rollups (docs/decisions.md, "Metrics: new subscriptions from day
 * rollups"): "created in the day, unless its scheduled end falls in the same local day" is not a
 * difference of running counts (whether a row counts depends on the offset of its own day), so its
 * rows are per day, not cumulative: per organization × whole-hour UTC offset (−12 to +14) × the local
 * date at that offset, the subscriptions created that day whose `ends_at` has another local date at
 * that offset. A day of one offset reads its row; the two DST days a year read the subscriptions
 * created that day, by the index added here.
 *
 * A row's contribution depends on its own columns only (organization, `created_at`, `ends_at`), so
 * the triggers on the subscriptions write the day rows directly, with no facts between: the old
 * row's contribution is subtracted, the new one's added.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE metric_subscription_new_day_rollups (
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    utc_offset smallint NOT NULL,
    day date NOT NULL,
    slot smallint NOT NULL,
    created bigint NOT NULL,
    CONSTRAINT metric_subscription_new_day_rollups_key UNIQUE (organization_id, utc_offset, day, slot)
  )`.execute(db);

  // The offsets and local dates at which a subscription counts as new: its creation's date at each
  // whole-hour offset, unless its scheduled end has the same date there. The one definition for the
  // triggers, the backfill and the rebuild.
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

  // Adds each row's days with its sign, one grouped upsert ordered by the key (two writers lock
  // shared rows in one order), in the organization's slot of the subscription day rollups (the same
  // try-lock key: a transaction writing both keeps one slot and one lock per organization).
  await sql`CREATE FUNCTION metrics_add_new_subscriptions(organization_ids uuid[], created timestamptz[], ends timestamptz[], signs integer[])
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      WITH changed AS (
        SELECT * FROM unnest(organization_ids, created, ends, signs) c(organization_id, created_at, ends_at, sign)
      ), slots AS MATERIALIZED (
        SELECT o.organization_id, metrics_rollup_slot('metric_subscription_day_rollups|' || o.organization_id) AS slot
        FROM (SELECT DISTINCT organization_id FROM changed) o
      )
      INSERT INTO metric_subscription_new_day_rollups AS r (organization_id, utc_offset, day, slot, created)
      SELECT c.organization_id, d.utc_offset, d.day, s.slot, sum(c.sign)
      FROM changed c JOIN slots s USING (organization_id) CROSS JOIN LATERAL metric_subscription_new_days(c.created_at, c.ends_at) d
      GROUP BY 1, 2, 3, 4
      HAVING sum(c.sign) <> 0
      ORDER BY 1, 2, 3, 4
      ON CONFLICT ON CONSTRAINT metric_subscription_new_day_rollups_key DO UPDATE SET created = r.created + EXCLUDED.created;
    END $$`.execute(db);

  // Inserts and deletes per statement (a bulk insert is one upsert); updates per row, and only those
  // moving what the rows read, so a renewal's update costs nothing here.
  await sql`CREATE FUNCTION metrics_subscription_new_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM metrics_add_new_subscriptions(array_agg(organization_id), array_agg(created_at), array_agg(ends_at),
        array_agg(CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END))
      FROM changed;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_new_inserted AFTER INSERT ON subscriptions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION metrics_subscription_new_rows_changed()`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_new_deleted AFTER DELETE ON subscriptions
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION metrics_subscription_new_rows_changed()`.execute(db);
  await sql`CREATE FUNCTION metrics_subscription_new_row_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM metrics_add_new_subscriptions(ARRAY[OLD.organization_id, NEW.organization_id], ARRAY[OLD.created_at, NEW.created_at],
        ARRAY[OLD.ends_at, NEW.ends_at], ARRAY[-1, 1]);
      RETURN NULL;
    END $$`.execute(db);
  // Named to fire after metrics_subscription_update (same event, names in order), so an update
  // locks the subscription facts before these rows, as an insert does (its statement trigger fires
  // after the row ones): the rebuild locks them in that order too.
  await sql`CREATE TRIGGER metrics_subscription_update_new_rows AFTER UPDATE ON subscriptions FOR EACH ROW
    WHEN ((OLD.organization_id, OLD.created_at, OLD.ends_at) IS DISTINCT FROM (NEW.organization_id, NEW.created_at, NEW.ends_at))
    EXECUTE FUNCTION metrics_subscription_new_row_updated()`.execute(db);

  // The DST days' read: an organization's subscriptions created in one local day, their scheduled
  // ends in the index (an index-only scan).
  await sql`CREATE INDEX subscriptions_org_created_idx ON subscriptions (organization_id, created_at) INCLUDE (ends_at)`.execute(db);

  // The subscriptions kept so far, as the rebuild writes them.
  await sql`INSERT INTO metric_subscription_new_day_rollups (organization_id, utc_offset, day, slot, created)
    SELECT organization_id, utc_offset, day, 0, created FROM metric_subscription_new_day_source`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX subscriptions_org_created_idx`.execute(db);
  await sql`DROP TRIGGER metrics_subscription_update_new_rows ON subscriptions`.execute(db);
  await sql`DROP TRIGGER metrics_subscription_new_inserted ON subscriptions`.execute(db);
  await sql`DROP TRIGGER metrics_subscription_new_deleted ON subscriptions`.execute(db);
  await sql`DROP FUNCTION metrics_subscription_new_row_updated(), metrics_subscription_new_rows_changed(),
    metrics_add_new_subscriptions(uuid[], timestamptz[], timestamptz[], integer[])`.execute(db);
  await sql`DROP VIEW metric_subscription_new_day_source`.execute(db);
  await sql`DROP FUNCTION metric_subscription_new_days(timestamptz, timestamptz)`.execute(db);
  await sql`DROP TABLE metric_subscription_new_day_rollups`.execute(db);
}
