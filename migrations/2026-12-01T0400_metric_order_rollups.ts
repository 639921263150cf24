import { sql, type Kysely } from "kysely";

/**
 * The order rollups of the metrics (docs/decisions.md, "Metrics: order rollups"): one row per
 * organization × UTC hour × product × currency × kind × the two hour lags that decide new vs
 * renewed at any interval, kept by triggers in the transaction that changes an order, a refund, a
 * dispute or a subscription's start. `metric_order_facts` holds each counted order's current
 * contribution, so a change subtracts exactly what was added before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE metric_order_facts (
    order_id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    hour timestamptz NOT NULL,
    product_id uuid,
    currency text NOT NULL,
    subscription_id uuid,
    start_lag integer,
    prev_lag integer,
    revenue bigint NOT NULL,
    net bigint NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX metric_order_facts_organization ON metric_order_facts (organization_id)`.execute(db);
  await sql`CREATE INDEX metric_order_facts_subscription ON metric_order_facts (subscription_id) WHERE subscription_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE TABLE metric_order_rollups (
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    hour timestamptz NOT NULL,
    product_id uuid,
    currency text NOT NULL,
    subscription boolean NOT NULL,
    start_lag integer,
    prev_lag integer,
    orders bigint NOT NULL,
    revenue bigint NOT NULL,
    net bigint NOT NULL,
    CONSTRAINT metric_order_rollups_key UNIQUE NULLS NOT DISTINCT (organization_id, hour, product_id, currency, subscription, start_lag, prev_lag)
  )`.execute(db);

  // Hours from the hour of `at` to `hour`, for the one question asked of it: does a local period
  // (hour, day, week, month or year, in a zone whose offset is whole hours between -12 and +14)
  // hold both? Null: no `at`, or too far for any period (a local year is at most 8,785 hours).
  // Over 169 hours (a week) only the month and the year can tell, and over 745 only the year, so
  // an `at` at least 12 hours after its UTC month's (year's) start and 14 before its end, where
  // every zone reads the same month (year), is moved to that month's (year's) start + 12 hours:
  // the renewals of one hour then share a few lags instead of one per subscription.
  await sql`CREATE FUNCTION metrics_hour_lag(hour timestamptz, at timestamptz) RETURNS integer
    LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE
        WHEN abs(l) > 9000 THEN NULL
        WHEN l <= 169 THEN l::integer
        ELSE (extract(epoch FROM hour - (CASE
          WHEN l > 745 AND ua >= y + interval '12 hours' AND ua < y + interval '1 year' - interval '14 hours' THEN y + interval '12 hours'
          WHEN ua >= m + interval '12 hours' AND ua < m + interval '1 month' - interval '14 hours' THEN m + interval '12 hours'
          ELSE ua END) AT TIME ZONE 'UTC') / 3600)::integer
      END
      FROM (SELECT date_bin('1 hour', at, '2000-01-01T00:00:00Z') AT TIME ZONE 'UTC' AS ua) a,
        LATERAL (SELECT extract(epoch FROM hour - (a.ua AT TIME ZONE 'UTC')) / 3600 AS l,
          date_trunc('year', a.ua) AS y, date_trunc('month', a.ua) AS m) x
    $$`.execute(db);

  // What each settled order contributes: the one definition the triggers and the rebuild read.
  await sql`CREATE VIEW metric_order_fact_source AS
    SELECT o.id AS order_id, o.organization_id, h.hour, o.product_id, o.currency, o.subscription_id,
      metrics_hour_lag(h.hour, s.started_at) AS start_lag,
      metrics_hour_lag(h.hour, p.created_at) AS prev_lag,
      o.net_amount::bigint AS revenue,
      (o.net_amount
        - CASE WHEN o.platform_fee_currency IS NULL OR o.platform_fee_currency = o.currency THEN o.platform_fee_amount ELSE 0 END
        - coalesce((SELECT sum(rf.amount) FROM refunds rf WHERE rf.order_id = o.id AND rf.status = 'succeeded'), 0)
        - coalesce((SELECT sum(d.amount) FROM disputes d WHERE d.order_id = o.id AND d.status IN ('needs_response', 'under_review', 'lost')), 0)
      )::bigint AS net
    FROM orders o
    CROSS JOIN LATERAL (SELECT date_bin('1 hour', o.created_at, '2000-01-01T00:00:00Z') AS hour) h
    LEFT JOIN subscriptions s ON s.id = o.subscription_id
    -- The subscription's previous settled order: a renewal counts its subscription once per period.
    LEFT JOIN LATERAL (
      SELECT p.created_at FROM orders p
      WHERE p.subscription_id = o.subscription_id AND p.status IN ('paid', 'refunded', 'partially_refunded')
        AND (p.created_at, p.id) < (o.created_at, o.id)
      ORDER BY p.created_at DESC, p.id DESC LIMIT 1
    ) p ON o.subscription_id IS NOT NULL
    WHERE o.status IN ('paid', 'refunded', 'partially_refunded')`.execute(db);

  await sql`CREATE FUNCTION metrics_add_order_fact(f metric_order_facts, sign integer) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO metric_order_rollups AS r
        (organization_id, hour, product_id, currency, subscription, start_lag, prev_lag, orders, revenue, net)
      VALUES (f.organization_id, f.hour, f.product_id, f.currency, f.subscription_id IS NOT NULL, f.start_lag, f.prev_lag,
        sign, sign * f.revenue, sign * f.net)
      ON CONFLICT ON CONSTRAINT metric_order_rollups_key DO UPDATE
        SET orders = r.orders + EXCLUDED.orders, revenue = r.revenue + EXCLUDED.revenue, net = r.net + EXCLUDED.net
    $$`.execute(db);

  // One order's contribution, replaced. A transaction-scoped advisory lock per subscription (per
  // order without one) serializes two transactions refreshing it (a refund and a renewal), so each
  // subtracts what the other added; unlike row locks on the sibling orders, it waits on no row
  // another writer holds (a renewal sweep racing a payment deadlocked on those).
  await sql`CREATE FUNCTION metrics_refresh_order(id uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      key uuid;
      before metric_order_facts;
      after metric_order_facts;
    BEGIN
      SELECT coalesce(o.subscription_id, o.id) INTO key FROM orders o WHERE o.id = metrics_refresh_order.id;
      IF key IS NULL THEN
        SELECT coalesce(f.subscription_id, f.order_id) INTO key FROM metric_order_facts f WHERE f.order_id = metrics_refresh_order.id;
      END IF;
      IF key IS NULL THEN RETURN; END IF;
      PERFORM pg_advisory_xact_lock(hashtext('metric_order_rollups'), hashtext(key::text));
      SELECT * INTO before FROM metric_order_facts f WHERE f.order_id = metrics_refresh_order.id;
      SELECT * INTO after FROM metric_order_fact_source v WHERE v.order_id = metrics_refresh_order.id;
      -- Unchanged (a sibling whose start and previous order stayed): no rollup row is touched, so
      -- concurrent renewals of subscriptions bought in one hour do not queue on that hour's row.
      IF before IS NOT DISTINCT FROM after THEN RETURN; END IF;
      IF before.order_id IS NOT NULL THEN
        DELETE FROM metric_order_facts f WHERE f.order_id = metrics_refresh_order.id;
        PERFORM metrics_add_order_fact(before, -1);
      END IF;
      IF after.order_id IS NOT NULL THEN
        INSERT INTO metric_order_facts SELECT (after).*;
        PERFORM metrics_add_order_fact(after, 1);
      END IF;
    END $$`.execute(db);

  // An order of a subscription moves its siblings' previous order too: all of them are refreshed.
  await sql`CREATE FUNCTION metrics_refresh_orders_of(order_id uuid, subscription_id uuid) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE sibling uuid;
    BEGIN
      IF subscription_id IS NULL THEN
        PERFORM metrics_refresh_order(order_id);
        RETURN;
      END IF;
      PERFORM pg_advisory_xact_lock(hashtext('metric_order_rollups'), hashtext(subscription_id::text));
      FOR sibling IN
        SELECT o.id FROM orders o WHERE o.subscription_id = metrics_refresh_orders_of.subscription_id
        UNION SELECT f.order_id FROM metric_order_facts f WHERE f.subscription_id = metrics_refresh_orders_of.subscription_id
        UNION SELECT metrics_refresh_orders_of.order_id
        ORDER BY 1
      LOOP
        PERFORM metrics_refresh_order(sibling);
      END LOOP;
    END $$`.execute(db);

  await sql`CREATE FUNCTION metrics_order_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN PERFORM metrics_refresh_orders_of(OLD.id, OLD.subscription_id); END IF;
      IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR OLD.subscription_id IS DISTINCT FROM NEW.subscription_id) THEN
        PERFORM metrics_refresh_orders_of(NEW.id, NEW.subscription_id);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER metrics_order_insert_delete AFTER INSERT OR DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION metrics_order_changed()`.execute(db);
  await sql`CREATE TRIGGER metrics_order_update AFTER UPDATE ON orders FOR EACH ROW
    WHEN ((OLD.status, OLD.created_at, OLD.net_amount, OLD.platform_fee_amount, OLD.platform_fee_currency, OLD.product_id,
           OLD.currency, OLD.subscription_id, OLD.organization_id)
      IS DISTINCT FROM (NEW.status, NEW.created_at, NEW.net_amount, NEW.platform_fee_amount, NEW.platform_fee_currency,
           NEW.product_id, NEW.currency, NEW.subscription_id, NEW.organization_id))
    EXECUTE FUNCTION metrics_order_changed()`.execute(db);

  // Refunds and withheld disputes lower the net of their order, at the order's hour.
  await sql`CREATE FUNCTION metrics_order_adjusted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN PERFORM metrics_refresh_order(OLD.order_id); END IF;
      IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR OLD.order_id IS DISTINCT FROM NEW.order_id) THEN
        PERFORM metrics_refresh_order(NEW.order_id);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  for (const table of ["refunds", "disputes"]) {
    await sql`CREATE TRIGGER ${sql.raw(`metrics_${table}_insert_delete`)} AFTER INSERT OR DELETE ON ${sql.table(table)}
      FOR EACH ROW EXECUTE FUNCTION metrics_order_adjusted()`.execute(db);
    await sql`CREATE TRIGGER ${sql.raw(`metrics_${table}_update`)} AFTER UPDATE ON ${sql.table(table)} FOR EACH ROW
      WHEN ((OLD.status, OLD.amount, OLD.order_id) IS DISTINCT FROM (NEW.status, NEW.amount, NEW.order_id))
      EXECUTE FUNCTION metrics_order_adjusted()`.execute(db);
  }

  // A subscription's start decides which of its orders are new.
  await sql`CREATE FUNCTION metrics_subscription_started() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE first uuid;
    BEGIN
      SELECT o.id INTO first FROM orders o WHERE o.subscription_id = NEW.id ORDER BY o.created_at, o.id LIMIT 1;
      IF first IS NOT NULL THEN PERFORM metrics_refresh_orders_of(first, NEW.id); END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_started AFTER UPDATE ON subscriptions FOR EACH ROW
    WHEN (OLD.started_at IS DISTINCT FROM NEW.started_at) EXECUTE FUNCTION metrics_subscription_started()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER metrics_subscription_started ON subscriptions`.execute(db);
  for (const table of ["refunds", "disputes"]) {
    await sql`DROP TRIGGER ${sql.raw(`metrics_${table}_insert_delete`)} ON ${sql.table(table)}`.execute(db);
    await sql`DROP TRIGGER ${sql.raw(`metrics_${table}_update`)} ON ${sql.table(table)}`.execute(db);
  }
  await sql`DROP TRIGGER metrics_order_insert_delete ON orders`.execute(db);
  await sql`DROP TRIGGER metrics_order_update ON orders`.execute(db);
  await sql`DROP FUNCTION metrics_subscription_started(), metrics_order_adjusted(), metrics_order_changed(),
    metrics_refresh_orders_of(uuid, uuid), metrics_refresh_order(uuid), metrics_add_order_fact(metric_order_facts, integer)`.execute(db);
  await sql`DROP VIEW metric_order_fact_source`.execute(db);
  await sql`DROP FUNCTION metrics_hour_lag(timestamptz, timestamptz)`.execute(db);
  await sql`DROP TABLE metric_order_rollups, metric_order_facts`.execute(db);
}
