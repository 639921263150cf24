import { sql, type Kysely } from "kysely";

/**
 * Rollups of the checkouts family of the metrics (docs/decisions.md, "Metrics: checkout day
 * rollups"): the checkouts counted (at their first view, or their creation for those made before
 * views were recorded) and the succeeded ones, per organization × whole-hour UTC offset (−12 to +14)
 * × the local date at that offset, so a year by day reads one row per day whatever the number of
 * checkouts; and per organization × UTC hour, which the two DST days of a zone (23 or 25 hours)
 * read, as the order rollups' hours answer theirs. Row triggers on `checkouts` add each change's
 * difference in its transaction, in slots (`metrics_rollup_slot`, one per organization and
 * transaction) as the order day rows are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The checkouts the family counts, at the instant it counts them: the one definition of the
  // per-request read (metric-checkouts.repository.ts), the triggers and the rebuild.
  await sql`CREATE FUNCTION metrics_checkout_at(opened_at timestamptz, created_at timestamptz, views_since timestamptz)
    RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN opened_at IS NOT NULL THEN opened_at WHEN created_at < views_since THEN created_at END
    $$`.execute(db);
  // When checkout views began to be recorded: the migration that added `opened_at` (−∞ before it ran).
  await sql`CREATE FUNCTION metrics_checkout_views_since() RETURNS timestamptz LANGUAGE sql STABLE AS $$
      SELECT coalesce(
        (SELECT m.timestamp::timestamptz FROM kysely_migration m WHERE m.name = '2026-11-29T0505_checkout_opened_at'), '-infinity')
    $$`.execute(db);
  await sql`CREATE VIEW metric_checkout_rows AS
    SELECT c.id, c.organization_id, c.customer_id, c.status, a.at
    FROM checkouts c CROSS JOIN (SELECT metrics_checkout_views_since() AS since) v
      CROSS JOIN LATERAL (SELECT metrics_checkout_at(c.opened_at, c.created_at, v.since) AS at) a
    WHERE a.at IS NOT NULL`.execute(db);

  await sql`CREATE TABLE metric_checkout_hour_rollups (
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    hour timestamptz NOT NULL,
    slot smallint NOT NULL,
    checkouts bigint NOT NULL,
    succeeded bigint NOT NULL,
    CONSTRAINT metric_checkout_hour_rollups_key UNIQUE (organization_id, hour, slot)
  )`.execute(db);
  await sql`CREATE TABLE metric_checkout_day_rollups (
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    utc_offset smallint NOT NULL,
    day date NOT NULL,
    slot smallint NOT NULL,
    checkouts bigint NOT NULL,
    succeeded bigint NOT NULL,
    CONSTRAINT metric_checkout_day_rollups_key UNIQUE (organization_id, utc_offset, day, slot)
  )`.execute(db);

  // Adds a checkout's contribution (negative to take it away) to its UTC hour and to its local date
  // at each whole-hour offset, in the slot of the organization this transaction holds.
  await sql`CREATE FUNCTION metrics_add_checkout(organization uuid, at timestamptz, checkouts integer, succeeded integer)
    RETURNS void LANGUAGE plpgsql AS $$
      DECLARE chosen smallint := metrics_rollup_slot('metric_checkout_rollups|' || organization);
      BEGIN
        INSERT INTO metric_checkout_hour_rollups AS r (organization_id, hour, slot, checkouts, succeeded)
        VALUES (organization, date_bin('1 hour', at, '2000-01-01T00:00:00Z'), chosen, checkouts, succeeded)
        ON CONFLICT ON CONSTRAINT metric_checkout_hour_rollups_key DO UPDATE
          SET checkouts = r.checkouts + EXCLUDED.checkouts, succeeded = r.succeeded + EXCLUDED.succeeded;
        INSERT INTO metric_checkout_day_rollups AS r (organization_id, utc_offset, day, slot, checkouts, succeeded)
        SELECT organization, k, ((at AT TIME ZONE 'UTC') + k * interval '1 hour')::date, chosen, checkouts, succeeded
        FROM generate_series(-12, 14) k
        ORDER BY k
        ON CONFLICT ON CONSTRAINT metric_checkout_day_rollups_key DO UPDATE
          SET checkouts = r.checkouts + EXCLUDED.checkouts, succeeded = r.succeeded + EXCLUDED.succeeded;
      END $$`.execute(db);

  // The row's old contribution taken away and its new one added. The row lock of the change
  // serializes two writers of one checkout, and each sees the other's row as its OLD: no advisory
  // lock is needed, as the contribution is the row's own columns.
  await sql`CREATE FUNCTION metrics_checkout_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      since timestamptz := metrics_checkout_views_since();
      old_at timestamptz;
      new_at timestamptz;
    BEGIN
      IF TG_OP <> 'INSERT' THEN old_at := metrics_checkout_at(OLD.opened_at, OLD.created_at, since); END IF;
      IF TG_OP <> 'DELETE' THEN new_at := metrics_checkout_at(NEW.opened_at, NEW.created_at, since); END IF;
      -- A checkout deleted with its organization: the organization's rollups go with it.
      IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = OLD.organization_id) THEN RETURN NULL; END IF;
      IF TG_OP = 'UPDATE' AND old_at IS NOT DISTINCT FROM new_at AND OLD.organization_id = NEW.organization_id THEN
        -- The same instant and organization: only the succeeded count may have moved.
        IF new_at IS NOT NULL AND (OLD.status = 'succeeded') <> (NEW.status = 'succeeded') THEN
          PERFORM metrics_add_checkout(NEW.organization_id, new_at, 0,
            (NEW.status = 'succeeded')::int - (OLD.status = 'succeeded')::int);
        END IF;
        RETURN NULL;
      END IF;
      IF old_at IS NOT NULL THEN
        PERFORM metrics_add_checkout(OLD.organization_id, old_at, -1, -(OLD.status = 'succeeded')::int);
      END IF;
      IF new_at IS NOT NULL THEN
        PERFORM metrics_add_checkout(NEW.organization_id, new_at, 1, (NEW.status = 'succeeded')::int);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  // A checkout made now is not counted until it is viewed (views are recorded since before now):
  // the insert and delete triggers fire only for rows that may count.
  await sql`CREATE TRIGGER metrics_checkout_insert AFTER INSERT ON checkouts FOR EACH ROW
    WHEN (NEW.opened_at IS NOT NULL OR NEW.created_at < now())
    EXECUTE FUNCTION metrics_checkout_changed()`.execute(db);
  await sql`CREATE TRIGGER metrics_checkout_delete AFTER DELETE ON checkouts FOR EACH ROW
    WHEN (OLD.opened_at IS NOT NULL OR OLD.created_at < now())
    EXECUTE FUNCTION metrics_checkout_changed()`.execute(db);
  // Only what the family reads: an open checkout's other updates fire nothing.
  await sql`CREATE TRIGGER metrics_checkout_update AFTER UPDATE ON checkouts FOR EACH ROW
    WHEN ((OLD.organization_id, OLD.opened_at, OLD.created_at, OLD.status = 'succeeded')
      IS DISTINCT FROM (NEW.organization_id, NEW.opened_at, NEW.created_at, NEW.status = 'succeeded'))
    EXECUTE FUNCTION metrics_checkout_changed()`.execute(db);

  // The checkouts kept so far, as the rebuild writes them.
  await sql`INSERT INTO metric_checkout_hour_rollups (organization_id, hour, slot, checkouts, succeeded)
    SELECT organization_id, date_bin('1 hour', at, '2000-01-01T00:00:00Z'), 0, count(*), count(*) FILTER (WHERE status = 'succeeded')
    FROM metric_checkout_rows GROUP BY 1, 2`.execute(db);
  await sql`INSERT INTO metric_checkout_day_rollups (organization_id, utc_offset, day, slot, checkouts, succeeded)
    SELECT organization_id, k, ((hour AT TIME ZONE 'UTC') + k * interval '1 hour')::date, 0, sum(checkouts), sum(succeeded)
    FROM metric_checkout_hour_rollups CROSS JOIN generate_series(-12, 14) k GROUP BY 1, 2, 3`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER metrics_checkout_insert ON checkouts`.execute(db);
  await sql`DROP TRIGGER metrics_checkout_delete ON checkouts`.execute(db);
  await sql`DROP TRIGGER metrics_checkout_update ON checkouts`.execute(db);
  await sql`DROP FUNCTION metrics_checkout_changed(), metrics_add_checkout(uuid, timestamptz, integer, integer)`.execute(db);
  await sql`DROP TABLE metric_checkout_day_rollups, metric_checkout_hour_rollups`.execute(db);
  await sql`DROP VIEW metric_checkout_rows`.execute(db);
  await sql`DROP FUNCTION metrics_checkout_views_since(), metrics_checkout_at(timestamptz, timestamptz, timestamptz)`.execute(db);
}
