import { sql, type RawBuilder } from "kysely";
import type { Db } from "../../db/database.ts";
import type { TimeInterval } from "../../schema/time-intervals.ts";
import { checkoutsFamily } from "./metric-checkouts.repository.ts";
import { costsFamily } from "./metric-costs.repository.ts";
import type { Family, FamilyScope, MetricFamily, MetricsFilter } from "./metric-families.repository.ts";
import { ordersFamily } from "./metric-orders.repository.ts";
import { subscriptionFamilies, subscriptionRows } from "./metric-subscriptions.repository.ts";

export type { MetricFamily, MetricsFilter } from "./metric-families.repository.ts";

/**
 * The source rows of the metrics, read in one statement per request (anchor-behaviour-wave3.md
 * §1.1): a series of local period starts joined to one CTE group per query family the requested
 * metrics need (one file per family: metric-orders, metric-subscriptions, metric-checkouts,
 * metric-costs). The statement runs with the session time zone set to the requested one, so
 * `date_trunc` and the series' steps are local and DST-aware.
 */
export interface MetricsSourceRequest {
  /** Plain dates (`YYYY-MM-DD`), both included, in `timezone`. */
  startDate: string;
  endDate: string;
  interval: TimeInterval;
  timezone: string;
  families: ReadonlySet<MetricFamily>;
  filter: MetricsFilter;
  /** Orders from the rollups (metric-rollups.repository.ts) rather than the orders themselves. */
  ordersFromRollups: boolean;
  /** The subscription stock from its day rollups (metric-subscriptions.repository.ts): days in a whole-hour zone, no filter but organizations. */
  subscriptionsFromRollups?: boolean;
  /** The checkouts from their rollups (metric-checkouts.repository.ts): days in a whole-hour zone, no filter but organizations. */
  checkoutsFromRollups?: boolean;
}

/** One period's source values (absent: the family was not read), and its local start with its offset. */
export interface SourcePeriod {
  timestamp: string;
  values: Record<string, number>;
}

const STEP: Record<TimeInterval, string> = { hour: "1 hour", day: "1 day", week: "1 week", month: "1 month", year: "1 year" };

export async function metricSources(db: Db, request: MetricsSourceRequest): Promise<SourcePeriod[]> {
  const { filter, interval } = request;
  const orgs = sql`${filter.organizationIds}::uuid[]`;
  const productScope =
    filter.productIds === null && filter.billingTypes === null
      ? null
      : sql`(SELECT p.id FROM products p WHERE p.organization_id = ANY(${orgs})
          ${filter.productIds === null ? sql`` : sql`AND p.id = ANY(${filter.productIds}::uuid[])`}
          ${filter.billingTypes === null ? sql`` : sql`AND (CASE WHEN p.recurring_interval IS NULL THEN 'one_time' ELSE 'recurring' END) = ANY(${filter.billingTypes}::text[])`})`;
  const scope: FamilyScope = {
    filter,
    interval,
    currency: filter.currency,
    orgs,
    step: sql`${STEP[interval]}::interval`,
    trunc: (expression: RawBuilder<unknown>) => sql`date_trunc(${sql.lit(interval)}, ${expression})`,
    productScope,
    productMatch: (column) => (productScope === null ? sql`true` : sql`${column} IN ${productScope}`),
    customerMatch: (column) => (filter.customerIds === null ? sql`true` : sql`${column} = ANY(${filter.customerIds}::uuid[])`),
    inBounds: (column) => sql`${column} >= (SELECT lo FROM bounds) AND ${column} < (SELECT hi FROM bounds)`,
  };
  const { trunc, step } = scope;
  const subscriptions = subscriptionFamilies(scope, request.subscriptionsFromRollups === true);
  const familyOf = (name: MetricFamily): Family => {
    switch (name) {
      case "orders":
        return ordersFamily(scope, request.ordersFromRollups);
      case "checkouts":
        return checkoutsFamily(scope, request.checkoutsFromRollups === true);
      case "costs":
        return costsFamily(scope);
      default:
        return subscriptions[name];
    }
  };
  const chosen = [...request.families].map(familyOf);
  const readsSubscriptions = [...request.families].some((name) => name in subscriptions);
  const ctes = [
    sql`bounds AS (SELECT ${request.startDate}::date::timestamptz AS lo, (${request.endDate}::date + 1)::timestamptz AS hi)`,
    // Local period starts from the start's period (snapped back to its Monday, 1st, 1 January) to the end's.
    sql`series AS (SELECT t FROM bounds, generate_series(${trunc(sql`lo`)}, hi - interval '1 microsecond', ${step}) t)`,
    ...(readsSubscriptions ? [subscriptionRows(scope)] : []),
    ...chosen.flatMap((family) => family.ctes),
  ];
  const joins = chosen.flatMap((family) => (family.join === null ? [] : [sql`LEFT JOIN ${sql.table(family.join)} USING (t)`]));
  const columns = chosen.flatMap((family) => family.columns);

  return db.transaction().execute(async (trx) => {
    // Local buckets: date_trunc, the series' steps and to_char's offset all read the session zone.
    await sql`SELECT set_config('TimeZone', ${request.timezone}, true)`.execute(trx);
    const { rows } = await sql<Record<string, number> & { timestamp: string }>`WITH ${sql.join(ctes)}
      SELECT to_char(series.t, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM') AS "timestamp"${columns.length > 0 ? sql`, ${sql.join(columns)}` : sql``}
      FROM series ${sql.join(joins, sql` `)}
      ORDER BY series.t`.execute(trx);
    return rows.map(({ timestamp, ...values }) => ({ timestamp, values }));
  });
}

/**
 * The organizations a request covers, with their default currency: those the principal may read
 * (`allowed`, null: all) among those the filter names (null: no filter).
 */
export function metricOrganizations(db: Db, allowed: readonly string[] | null, named: readonly string[] | null) {
  let query = db.selectFrom("organizations").select(["id", "default_presentment_currency"]).orderBy("created_at").orderBy("id");
  if (allowed !== null) query = query.where("id", "in", allowed);
  if (named !== null) query = query.where("id", "in", named);
  return query.execute();
}
