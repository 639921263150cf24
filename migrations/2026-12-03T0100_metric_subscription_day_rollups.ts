import { sql, type Kysely } from "kysely";

/**
 * Day rollups of the subscription stock (docs/decisions.md, "Metrics: subscription day rollups"):
 * the running sums' events ("Metrics: subscription stock as running sums") kept per organization ×
 * whole-hour UTC offset (−12 to +14) × the local date at that offset × currency, so a day's stock is
 * the sum of the rows up to that date at the offset of the midnight ending it, whatever the number
 * of subscriptions. Each customer's events are kept in `metric_subscription_facts` (its
 * subscriptions' starts and ends, and where the customer's alive rows in a currency go from none to
 * some and back), refreshed from one view by triggers on the subscriptions and on the orders that set
 * an inclusive subscription's tax rate; statement triggers on the facts write the day rows in slots,
 * as the order day rollups do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // What every subscription family reads of a subscription: its end and its monthly amount net of tax.
  // The one definition of the per-request read (metric-subscriptions.repository.ts) and of the facts.
  await sql`CREATE VIEW metric_subscription_rows AS
    SELECT s.id, s.organization_id, s.product_id, s.customer_id, s.currency, s.started_at, s.created_at, s.canceled_at, s.trial_end,
      s.ends_at, s.customer_cancellation_reason AS reason, coalesce(s.ended_at, s.ends_at) AS end_at,
      -- What a period bills net of tax, per month (half away from zero, as numeric round does).
      round(CASE s.recurring_interval
        WHEN 'year' THEN net.amount / (12 * s.recurring_interval_count)
        WHEN 'month' THEN net.amount / s.recurring_interval_count
        WHEN 'week' THEN net.amount * 52 / (12 * s.recurring_interval_count)
        ELSE net.amount * 365 / (12 * s.recurring_interval_count) END) AS monthly
    FROM subscriptions s
    -- Inclusive prices hold the tax: less the tax at the rate of the subscription's latest taxed order
    -- (docs/decisions.md, "Metrics: MRR net of inclusive tax"). The rate is a float column: made
    -- numeric, so a tie rounds away from zero as the tax engine's does.
    CROSS JOIN LATERAL (
      SELECT s.amount - CASE WHEN s.tax_behavior = 'inclusive' THEN coalesce(round(s.amount * o.tax_rate_basis_points::numeric / (10000 + o.tax_rate_basis_points::numeric)), 0) ELSE 0 END AS amount
      FROM (SELECT NULL) one
      -- The condition inside the lateral read, not in its ON: a one-time filter, so an exclusive
      -- row reads none of its orders (in ON it only discarded what they gave, read anyway).
      LEFT JOIN LATERAL (
        SELECT o.tax_rate_basis_points FROM orders o
        WHERE s.tax_behavior = 'inclusive' AND o.subscription_id = s.id AND o.tax_rate_basis_points IS NOT NULL
          AND o.status IN ('paid', 'refunded', 'partially_refunded')
        ORDER BY o.created_at DESC, o.id DESC LIMIT 1
      ) o ON true
    ) net`.execute(db);

  // What each row adds at the start of a span it counts in and takes away at its end, at the raw
  // instant: alive [start, end), billing [later of start and trial end, end), in trial [start,
  // earlier of trial end and end); a missing start is −∞, an end before its start an empty span. A
  // period's truncation of these instants is what the running sums read (truncation is monotone, so
  // the later of two periods is the period of the later instant).
  await sql`CREATE VIEW metric_subscription_stock_events AS
    SELECT r.organization_id, r.customer_id, r.id AS subscription_id, r.product_id, r.currency,
      e.at, e.active, e.committed, e.mrr, e.cmrr, e.trial_mrr, e.trial_cmrr
    FROM (
      SELECT r.*, coalesce(r.started_at, '-infinity') AS s0, r.end_at IS NULL AS open, r.trial_end IS NOT NULL AS trial,
        coalesce(r.monthly, 0)::bigint AS m
      FROM metric_subscription_rows r
    ) r
    CROSS JOIN LATERAL (VALUES
      (r.s0, 1, r.open::int, 0::bigint, 0::bigint, CASE WHEN r.trial THEN r.m ELSE 0 END, CASE WHEN r.trial AND r.open THEN r.m ELSE 0 END),
      (greatest(r.s0, r.trial_end), 0, 0, r.m, CASE WHEN r.open THEN r.m ELSE 0 END, 0, 0),
      (CASE WHEN NOT r.open THEN greatest(r.s0, r.end_at) END, -1, 0, 0, 0, 0, 0),
      (CASE WHEN NOT r.open THEN greatest(r.s0, r.trial_end, r.end_at) END, 0, 0, -r.m, 0, 0, 0),
      (CASE WHEN r.trial THEN greatest(r.s0, least(r.trial_end, r.end_at)) END, 0, 0, 0, 0, -r.m, CASE WHEN r.open THEN -r.m ELSE 0 END)
    ) e(at, active, committed, mrr, cmrr, trial_mrr, trial_cmrr)
    -- An event that moves nothing (a free row's billing start) is left out.
    WHERE e.at IS NOT NULL AND (e.active, e.committed, e.mrr, e.cmrr, e.trial_mrr, e.trial_cmrr) <> (0, 0, 0, 0, 0, 0)`.execute(db);

  // Where a customer's alive rows in a currency go from none to some (+1) and back (−1):
  // subscription_customers, a distinct count, as a sum.
  await sql`CREATE VIEW metric_subscription_customer_events AS
    SELECT organization_id, customer_id, currency, at, CASE WHEN level > 0 THEN 1 ELSE -1 END AS customers
    FROM (
      SELECT organization_id, customer_id, currency, at, d, sum(d) OVER (PARTITION BY customer_id, currency ORDER BY at) AS level
      FROM (
        SELECT organization_id, customer_id, currency, at, sum(active) AS d
        FROM metric_subscription_stock_events WHERE active <> 0
        GROUP BY 1, 2, 3, 4
      ) g
    ) c
    WHERE level > 0 AND level = d OR level = 0 AND d < 0`.execute(db);

  // The churn windows' counts (churn_rate): the base at a bound counts rows started at or before it
  // less those whose later of start and end is at or before it, the cancellations those before it.
  // "At or before a midnight" is "before it" a microsecond earlier (timestamps have microseconds),
  // so every count is "instants before a local midnight", which day rows at that midnight's offset answer.
  await sql`CREATE VIEW metric_subscription_churn_events AS
    SELECT r.organization_id, r.customer_id, r.id AS subscription_id, r.currency, e.at, e.churn_base, e.churn_canceled
    FROM metric_subscription_rows r
    CROSS JOIN LATERAL (VALUES
      (r.started_at - interval '1 microsecond', 1, 0),
      (CASE WHEN r.end_at IS NOT NULL THEN greatest(r.started_at, r.end_at) - interval '1 microsecond' END, -1, 0),
      (r.canceled_at, 0, 1)
    ) e(at, churn_base, churn_canceled)
    WHERE e.at IS NOT NULL AND (e.churn_base <> 0 AND r.started_at IS NOT NULL OR e.churn_canceled <> 0)`.execute(db);

  // The facts: each subscription's stock events (subscription_id set, customers 0) and each
  // customer's transitions (subscription_id null, the stock columns 0).
  await sql`CREATE TABLE metric_subscription_facts (
    organization_id uuid NOT NULL,
    customer_id uuid NOT NULL,
    subscription_id uuid,
    currency text NOT NULL,
    at timestamptz NOT NULL,
    active integer NOT NULL,
    committed integer NOT NULL,
    mrr bigint NOT NULL,
    cmrr bigint NOT NULL,
    trial_mrr bigint NOT NULL,
    trial_cmrr bigint NOT NULL,
    customers integer NOT NULL,
    churn_base integer NOT NULL,
    churn_canceled integer NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX metric_subscription_facts_subscription ON metric_subscription_facts (subscription_id)`.execute(db);
  await sql`CREATE INDEX metric_subscription_facts_customer ON metric_subscription_facts (customer_id) WHERE subscription_id IS NULL`.execute(
    db,
  );
  await sql`CREATE INDEX metric_subscription_facts_organization ON metric_subscription_facts (organization_id)`.execute(db);
  await sql`CREATE VIEW metric_subscription_fact_source AS
    SELECT organization_id, customer_id, subscription_id, currency, at, active, committed, mrr, cmrr, trial_mrr, trial_cmrr,
      0 AS customers, 0 AS churn_base, 0 AS churn_canceled
    FROM metric_subscription_stock_events
    UNION ALL
    SELECT organization_id, customer_id, subscription_id, currency, at, 0, 0, 0, 0, 0, 0, 0, churn_base, churn_canceled
    FROM metric_subscription_churn_events
    UNION ALL
    SELECT organization_id, customer_id, NULL, currency, at, 0, 0, 0, 0, 0, 0, customers, 0, 0 FROM metric_subscription_customer_events`.execute(
    db,
  );

  await sql`CREATE TABLE metric_subscription_day_rollups (
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    utc_offset smallint NOT NULL,
    day date NOT NULL,
    currency text NOT NULL,
    slot smallint NOT NULL,
    active bigint NOT NULL,
    committed bigint NOT NULL,
    mrr bigint NOT NULL,
    cmrr bigint NOT NULL,
    trial_mrr bigint NOT NULL,
    trial_cmrr bigint NOT NULL,
    customers bigint NOT NULL,
    churn_base bigint NOT NULL,
    churn_canceled bigint NOT NULL,
    CONSTRAINT metric_subscription_day_rollups_key UNIQUE (organization_id, utc_offset, day, currency, slot)
  )`.execute(db);

  // One grouped upsert per statement on the facts, in one slot per organization (the order day
  // rollups' design): the local date of each instant at every whole-hour offset (−∞ stays −∞).
  await sql`CREATE FUNCTION metrics_subscription_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE sign integer := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    BEGIN
      WITH slots AS MATERIALIZED (
        SELECT o.organization_id, metrics_rollup_slot('metric_subscription_day_rollups|' || o.organization_id) AS slot
        FROM (SELECT DISTINCT organization_id FROM changed) o
      )
      INSERT INTO metric_subscription_day_rollups AS r
        (organization_id, utc_offset, day, currency, slot, active, committed, mrr, cmrr, trial_mrr, trial_cmrr, customers,
          churn_base, churn_canceled)
      SELECT f.organization_id, k, ((f.at AT TIME ZONE 'UTC') + k * interval '1 hour')::date, f.currency, s.slot,
        sign * sum(f.active), sign * sum(f.committed), sign * sum(f.mrr), sign * sum(f.cmrr),
        sign * sum(f.trial_mrr), sign * sum(f.trial_cmrr), sign * sum(f.customers),
        sign * sum(f.churn_base), sign * sum(f.churn_canceled)
      FROM changed f JOIN slots s USING (organization_id) CROSS JOIN generate_series(-12, 14) k
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ON CONSTRAINT metric_subscription_day_rollups_key DO UPDATE
        SET active = r.active + EXCLUDED.active, committed = r.committed + EXCLUDED.committed, mrr = r.mrr + EXCLUDED.mrr,
          cmrr = r.cmrr + EXCLUDED.cmrr, trial_mrr = r.trial_mrr + EXCLUDED.trial_mrr, trial_cmrr = r.trial_cmrr + EXCLUDED.trial_cmrr,
          customers = r.customers + EXCLUDED.customers, churn_base = r.churn_base + EXCLUDED.churn_base,
          churn_canceled = r.churn_canceled + EXCLUDED.churn_canceled;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_facts_inserted AFTER INSERT ON metric_subscription_facts
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION metrics_subscription_facts_changed()`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_facts_deleted AFTER DELETE ON metric_subscription_facts
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION metrics_subscription_facts_changed()`.execute(db);

  // A subscription's facts and its customer's transitions, each replaced only when it changed (a
  // renewal's order of an inclusive subscription mostly leaves them as they were, and touches no day
  // row then). The advisory lock per customer serializes two transactions refreshing it: each
  // statement's snapshot is taken after the lock, so each reads the facts the other wrote.
  await sql`CREATE FUNCTION metrics_refresh_subscription(subscription uuid, customer uuid) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext('metric_subscription_facts'), hashtext(customer::text));
      IF EXISTS (
        (SELECT * FROM metric_subscription_facts WHERE subscription_id = subscription
        EXCEPT ALL SELECT * FROM metric_subscription_fact_source WHERE subscription_id = subscription)
        UNION ALL
        (SELECT * FROM metric_subscription_fact_source WHERE subscription_id = subscription
        EXCEPT ALL SELECT * FROM metric_subscription_facts WHERE subscription_id = subscription)
      ) THEN
        DELETE FROM metric_subscription_facts WHERE subscription_id = subscription;
        INSERT INTO metric_subscription_facts
          SELECT * FROM metric_subscription_fact_source WHERE subscription_id = subscription;
      END IF;
      IF EXISTS (
        (SELECT organization_id, currency, at, customers FROM metric_subscription_facts WHERE customer_id = customer AND subscription_id IS NULL
        EXCEPT SELECT organization_id, currency, at, customers FROM metric_subscription_customer_events WHERE customer_id = customer)
        UNION ALL
        (SELECT organization_id, currency, at, customers FROM metric_subscription_customer_events WHERE customer_id = customer
        EXCEPT SELECT organization_id, currency, at, customers FROM metric_subscription_facts WHERE customer_id = customer AND subscription_id IS NULL)
      ) THEN
        DELETE FROM metric_subscription_facts WHERE customer_id = customer AND subscription_id IS NULL;
        INSERT INTO metric_subscription_facts
          SELECT * FROM metric_subscription_fact_source WHERE customer_id = customer AND subscription_id IS NULL;
      END IF;
    END $$`.execute(db);
  await sql`CREATE FUNCTION metrics_subscription_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN PERFORM metrics_refresh_subscription(OLD.id, OLD.customer_id); END IF;
      IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' AND OLD.customer_id IS DISTINCT FROM NEW.customer_id THEN
        PERFORM metrics_refresh_subscription(NEW.id, NEW.customer_id);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_insert_delete AFTER INSERT OR DELETE ON subscriptions
    FOR EACH ROW EXECUTE FUNCTION metrics_subscription_changed()`.execute(db);
  // Only what the views read: a renewal moving the current period touches no fact.
  await sql`CREATE TRIGGER metrics_subscription_update AFTER UPDATE ON subscriptions FOR EACH ROW
    WHEN ((OLD.organization_id, OLD.customer_id, OLD.currency, OLD.started_at, OLD.trial_end, OLD.ends_at, OLD.ended_at, OLD.canceled_at,
           OLD.amount, OLD.tax_behavior, OLD.recurring_interval, OLD.recurring_interval_count)
      IS DISTINCT FROM (NEW.organization_id, NEW.customer_id, NEW.currency, NEW.started_at, NEW.trial_end, NEW.ends_at, NEW.ended_at, NEW.canceled_at,
           NEW.amount, NEW.tax_behavior, NEW.recurring_interval, NEW.recurring_interval_count))
    EXECUTE FUNCTION metrics_subscription_changed()`.execute(db);

  // An inclusive subscription's monthly amount is net of the tax at its latest taxed order's rate.
  await sql`CREATE FUNCTION metrics_subscription_order_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE s subscriptions;
    BEGIN
      FOR s IN
        SELECT * FROM subscriptions
        WHERE tax_behavior = 'inclusive'
          AND id IN (CASE WHEN TG_OP <> 'INSERT' THEN OLD.subscription_id END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.subscription_id END)
        ORDER BY customer_id, id
      LOOP
        PERFORM metrics_refresh_subscription(s.id, s.customer_id);
      END LOOP;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_order_insert AFTER INSERT ON orders FOR EACH ROW
    WHEN (NEW.subscription_id IS NOT NULL AND NEW.tax_rate_basis_points IS NOT NULL)
    EXECUTE FUNCTION metrics_subscription_order_changed()`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_order_delete AFTER DELETE ON orders FOR EACH ROW
    WHEN (OLD.subscription_id IS NOT NULL AND OLD.tax_rate_basis_points IS NOT NULL)
    EXECUTE FUNCTION metrics_subscription_order_changed()`.execute(db);
  await sql`CREATE TRIGGER metrics_subscription_order_update AFTER UPDATE ON orders FOR EACH ROW
    WHEN ((OLD.subscription_id IS NOT NULL OR NEW.subscription_id IS NOT NULL)
      AND (OLD.status, OLD.tax_rate_basis_points, OLD.subscription_id, OLD.created_at)
        IS DISTINCT FROM (NEW.status, NEW.tax_rate_basis_points, NEW.subscription_id, NEW.created_at))
    EXECUTE FUNCTION metrics_subscription_order_changed()`.execute(db);

  // The subscriptions kept so far, as the rebuild writes them.
  await sql`INSERT INTO metric_subscription_facts SELECT * FROM metric_subscription_fact_source`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER metrics_subscription_order_insert ON orders`.execute(db);
  await sql`DROP TRIGGER metrics_subscription_order_delete ON orders`.execute(db);
  await sql`DROP TRIGGER metrics_subscription_order_update ON orders`.execute(db);
  await sql`DROP TRIGGER metrics_subscription_insert_delete ON subscriptions`.execute(db);
  await sql`DROP TRIGGER metrics_subscription_update ON subscriptions`.execute(db);
  await sql`DROP FUNCTION metrics_subscription_order_changed(), metrics_subscription_changed(),
    metrics_refresh_subscription(uuid, uuid)`.execute(db);
  await sql`DROP TABLE metric_subscription_facts, metric_subscription_day_rollups`.execute(db);
  await sql`DROP FUNCTION metrics_subscription_facts_changed()`.execute(db);
  await sql`DROP VIEW metric_subscription_fact_source, metric_subscription_churn_events, metric_subscription_customer_events, metric_subscription_stock_events, metric_subscription_rows`.execute(
    db,
  );
}
