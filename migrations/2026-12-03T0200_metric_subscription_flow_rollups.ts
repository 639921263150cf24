import { sql, type Kysely, type RawBuilder } from "kysely";

/**
 * The flows `churned` and `canceled` (with its reasons) in the subscription day rollups
 * (docs/decisions.md, "Metrics: subscription flows from day rollups"): a day's flow is the count
 * of events before the midnight ending it less the count before the one starting it, each at its
 * own midnight's offset, as the stock reads. Cancellations themselves are `churn_canceled` already
 * (at `canceled_at`); this adds the ends (`end_at`) and the cancellations per reason, as facts of
 * their own (a third kind beside the stock and churn events), their day rows filled by the facts'
 * insert trigger.
 */
const REASONS = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
  "other",
] as const;

const reasonColumns = REASONS.map((reason) => `canceled_${reason}`);

export async function up(db: Kysely<unknown>): Promise<void> {
  const added = ["churned", ...reasonColumns];
  for (const table of ["metric_subscription_facts", "metric_subscription_day_rollups"]) {
    // The default fills the rows already there (none of them is an end or a reasoned cancellation),
    // then goes: every writer names every column, as before.
    const type = table === "metric_subscription_facts" ? sql`integer` : sql`bigint`;
    for (const column of added) {
      await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN ${sql.ref(column)} ${type} NOT NULL DEFAULT 0`.execute(db);
      await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.ref(column)} DROP DEFAULT`.execute(db);
    }
  }

  // Each row's end (done or scheduled) and its standing cancellation's reason, at their raw instants.
  await sql`CREATE VIEW metric_subscription_flow_events AS
    SELECT r.organization_id, r.customer_id, r.id AS subscription_id, r.currency, e.at, e.churned,
      ${sql.join(REASONS.map((reason) => sql`(e.reason IS NOT DISTINCT FROM ${sql.lit(reason)})::int AS ${sql.ref(`canceled_${reason}`)}`))}
    FROM metric_subscription_rows r
    CROSS JOIN LATERAL (VALUES (r.end_at, 1, NULL), (r.canceled_at, 0, r.reason)) e(at, churned, reason)
    WHERE e.at IS NOT NULL AND (e.churned <> 0 OR e.reason IS NOT NULL)`.execute(db);

  // The new columns last, in the table's order: the refresh compares and copies rows as `*`.
  const zeros = sql.join(added.map(() => sql`0`));
  await sql`CREATE OR REPLACE VIEW metric_subscription_fact_source AS
    SELECT organization_id, customer_id, subscription_id, currency, at, active, committed, mrr, cmrr, trial_mrr, trial_cmrr,
      0 AS customers, 0 AS churn_base, 0 AS churn_canceled, ${sql.join(added.map((column) => sql`0 AS ${sql.ref(column)}`))}
    FROM metric_subscription_stock_events
    UNION ALL
    SELECT organization_id, customer_id, subscription_id, currency, at, 0, 0, 0, 0, 0, 0, 0, churn_base, churn_canceled, ${zeros}
    FROM metric_subscription_churn_events
    UNION ALL
    SELECT organization_id, customer_id, NULL, currency, at, 0, 0, 0, 0, 0, 0, customers, 0, 0, ${zeros}
    FROM metric_subscription_customer_events
    UNION ALL
    SELECT organization_id, customer_id, subscription_id, currency, at, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      ${sql.join(added.map((column) => sql.ref(column)))}
    FROM metric_subscription_flow_events`.execute(db);

  await replaceFactsTrigger(db, [
    "active",
    "committed",
    "mrr",
    "cmrr",
    "trial_mrr",
    "trial_cmrr",
    "customers",
    "churn_base",
    "churn_canceled",
    ...added,
  ]);

  // The reason is read now: a reason set or changed refreshes the subscription's facts.
  await sql`DROP TRIGGER metrics_subscription_update ON subscriptions`.execute(db);
  await subscriptionUpdateTrigger(db, sql`, OLD.customer_cancellation_reason`, sql`, NEW.customer_cancellation_reason`);

  // The subscriptions kept so far: their other facts are unchanged, these are new.
  await sql`INSERT INTO metric_subscription_facts SELECT * FROM metric_subscription_fact_source WHERE churned <> 0 OR ${sql.join(
    reasonColumns.map((column) => sql`${sql.ref(column)} <> 0`),
    sql` OR `,
  )}`.execute(db);
}

/** The statement trigger's function on the facts (the first migration's), summing `columns`. */
async function replaceFactsTrigger(db: Kysely<unknown>, columns: readonly string[]): Promise<void> {
  const refs = sql.join(columns.map((column) => sql.ref(column)));
  await sql`CREATE OR REPLACE FUNCTION metrics_subscription_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE sign integer := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
    BEGIN
      WITH slots AS MATERIALIZED (
        SELECT o.organization_id, metrics_rollup_slot('metric_subscription_day_rollups|' || o.organization_id) AS slot
        FROM (SELECT DISTINCT organization_id FROM changed) o
      )
      INSERT INTO metric_subscription_day_rollups AS r (organization_id, utc_offset, day, currency, slot, ${refs})
      SELECT f.organization_id, k, ((f.at AT TIME ZONE 'UTC') + k * interval '1 hour')::date, f.currency, s.slot,
        ${sql.join(columns.map((column) => sql`sign * sum(${sql.ref(`f.${column}`)})`))}
      FROM changed f JOIN slots s USING (organization_id) CROSS JOIN generate_series(-12, 14) k
      GROUP BY 1, 2, 3, 4, 5
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT ON CONSTRAINT metric_subscription_day_rollups_key DO UPDATE
        SET ${sql.join(columns.map((column) => sql`${sql.ref(column)} = ${sql.ref(`r.${column}`)} + ${sql.ref(`excluded.${column}`)}`))};
      RETURN NULL;
    END $$`.execute(db);
}

/** The first migration's update trigger on the subscriptions, with `extraOld`/`extraNew` compared too. */
async function subscriptionUpdateTrigger(db: Kysely<unknown>, extraOld: RawBuilder<unknown>, extraNew: RawBuilder<unknown>) {
  await sql`CREATE TRIGGER metrics_subscription_update AFTER UPDATE ON subscriptions FOR EACH ROW
    WHEN ((OLD.organization_id, OLD.customer_id, OLD.currency, OLD.started_at, OLD.trial_end, OLD.ends_at, OLD.ended_at, OLD.canceled_at,
           OLD.amount, OLD.tax_behavior, OLD.recurring_interval, OLD.recurring_interval_count${extraOld})
      IS DISTINCT FROM (NEW.organization_id, NEW.customer_id, NEW.currency, NEW.started_at, NEW.trial_end, NEW.ends_at, NEW.ended_at, NEW.canceled_at,
           NEW.amount, NEW.tax_behavior, NEW.recurring_interval, NEW.recurring_interval_count${extraNew}))
    EXECUTE FUNCTION metrics_subscription_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER metrics_subscription_update ON subscriptions`.execute(db);
  await subscriptionUpdateTrigger(db, sql``, sql``);
  await replaceFactsTrigger(db, [
    "active",
    "committed",
    "mrr",
    "cmrr",
    "trial_mrr",
    "trial_cmrr",
    "customers",
    "churn_base",
    "churn_canceled",
  ]);
  await sql`ALTER TABLE metric_subscription_facts DISABLE TRIGGER metrics_subscription_facts_deleted`.execute(db);
  await sql`DELETE FROM metric_subscription_facts WHERE subscription_id IS NOT NULL AND (churned <> 0 OR ${sql.join(
    reasonColumns.map((column) => sql`${sql.ref(column)} <> 0`),
    sql` OR `,
  )})`.execute(db);
  await sql`ALTER TABLE metric_subscription_facts ENABLE TRIGGER metrics_subscription_facts_deleted`.execute(db);
  // A view cannot lose columns in place: the first migration's definition again.
  await sql`DROP VIEW metric_subscription_fact_source, metric_subscription_flow_events`.execute(db);
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
  for (const table of ["metric_subscription_facts", "metric_subscription_day_rollups"]) {
    await sql`ALTER TABLE ${sql.table(table)} ${sql.join(
      ["churned", ...reasonColumns].map((column) => sql`DROP COLUMN ${sql.ref(column)}`),
    )}`.execute(db);
  }
}
