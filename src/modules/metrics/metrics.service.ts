import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { RequestValidationError, fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { knownTimeZones } from "../../db/time-zones.ts";
import { asList } from "../../schema/pagination.ts";
import { intervalRangeIssue } from "../../schema/time-intervals.ts";
import {
  METRICS,
  METRIC_SLUGS,
  unknownMetricSlugs,
  withDependencies,
  type MetricDefinition,
  type MetricSlug,
} from "./metric-definitions.ts";
import { metricOrganizations, metricSources, type MetricFamily, type SourcePeriod } from "./metrics.repository.ts";
import { wholeHourZone } from "./metric-rollups.repository.ts";
import type { MetricsQuery, MetricsResponse } from "./metrics.schemas.ts";

/** The query family each computed metric reads; meta and seat metrics read none. */
const FAMILY: Partial<Record<MetricSlug, MetricFamily>> = {
  active_subscriptions: "subscriptions",
  committed_subscriptions: "subscriptions",
  monthly_recurring_revenue: "subscriptions",
  trial_monthly_recurring_revenue: "subscriptions",
  committed_monthly_recurring_revenue: "subscriptions",
  trial_committed_monthly_recurring_revenue: "subscriptions",
  average_revenue_per_user: "subscriptions",
  checkouts: "checkouts",
  succeeded_checkouts: "checkouts",
  churned_subscriptions: "churned",
  churn_rate: "churn_rate",
  orders: "orders",
  revenue: "orders",
  net_revenue: "orders",
  one_time_products: "orders",
  one_time_products_revenue: "orders",
  one_time_products_net_revenue: "orders",
  new_subscriptions_revenue: "orders",
  new_subscriptions_net_revenue: "orders",
  renewed_subscriptions: "orders",
  renewed_subscriptions_revenue: "orders",
  renewed_subscriptions_net_revenue: "orders",
  new_subscriptions: "new_subscriptions",
  costs: "costs",
  active_user_by_event: "costs",
  canceled_subscriptions: "canceled",
  canceled_subscriptions_customer_service: "canceled",
  canceled_subscriptions_low_quality: "canceled",
  canceled_subscriptions_missing_features: "canceled",
  canceled_subscriptions_switched_service: "canceled",
  canceled_subscriptions_too_complex: "canceled",
  canceled_subscriptions_too_expensive: "canceled",
  canceled_subscriptions_unused: "canceled",
  canceled_subscriptions_other: "canceled",
};

type Values = Partial<Record<MetricSlug, number>>;

/** A plain date (`YYYY-MM-DD`) so many days earlier. */
const daysBefore = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
const ratio = (numerator: number, denominator: number) => (denominator > 0 ? numerator / denominator : 0);

/**
 * One period's metrics from its source values. Cumulative ones add the running sums (`running`,
 * updated here) to the lifetime before the start; meta metrics read the period's others.
 */
function periodValues(
  source: Record<string, number>,
  running: { revenue: number; net: number; costs: number },
): Record<MetricSlug, number> {
  const value = (column: string) => source[column] ?? 0;
  running.revenue += value("revenue");
  running.net += value("net_revenue");
  running.costs += value("costs");
  const mrr = value("monthly_recurring_revenue");
  const cmrr = value("committed_monthly_recurring_revenue");
  const arpu = Math.round(ratio(mrr, value("subscription_customers")));
  const costPerUser = ratio(value("costs"), value("active_user_by_event"));
  const churnRate = ratio(value("churn_canceled"), value("churn_base"));
  const cumulativeRevenue = value("revenue_before") + running.revenue;
  const cumulativeCosts = value("costs_before") + running.costs;
  const priced = value("priced_orders");
  return {
    active_subscriptions: value("active_subscriptions"),
    committed_subscriptions: value("committed_subscriptions"),
    monthly_recurring_revenue: mrr,
    trial_monthly_recurring_revenue: value("trial_monthly_recurring_revenue"),
    committed_monthly_recurring_revenue: cmrr,
    trial_committed_monthly_recurring_revenue: value("trial_committed_monthly_recurring_revenue"),
    average_revenue_per_user: arpu,
    checkouts: value("checkouts"),
    succeeded_checkouts: value("succeeded_checkouts"),
    churned_subscriptions: value("churned_subscriptions"),
    churn_rate: churnRate,
    // No seats are stored here (docs/decisions.md, "Metrics: what is computed from what").
    seats_total: 0,
    seats_claimed: 0,
    seats_pending: 0,
    seat_customers: 0,
    new_seat_customers: 0,
    churned_seat_customers: 0,
    orders: value("orders"),
    revenue: value("revenue"),
    net_revenue: value("net_revenue"),
    cumulative_revenue: cumulativeRevenue,
    net_cumulative_revenue: value("net_revenue_before") + running.net,
    costs: value("costs"),
    cumulative_costs: cumulativeCosts,
    average_order_value: priced > 0 ? Math.ceil(value("revenue") / priced) : 0,
    net_average_order_value: priced > 0 ? Math.ceil(value("net_revenue") / priced) : 0,
    cost_per_user: costPerUser,
    active_user_by_event: value("active_user_by_event"),
    one_time_products: value("one_time_products"),
    one_time_products_revenue: value("one_time_products_revenue"),
    one_time_products_net_revenue: value("one_time_products_net_revenue"),
    new_subscriptions: value("new_subscriptions"),
    new_subscriptions_revenue: value("new_subscriptions_revenue"),
    new_subscriptions_net_revenue: value("new_subscriptions_net_revenue"),
    renewed_subscriptions: value("renewed_subscriptions"),
    renewed_subscriptions_revenue: value("renewed_subscriptions_revenue"),
    renewed_subscriptions_net_revenue: value("renewed_subscriptions_net_revenue"),
    canceled_subscriptions: value("canceled_subscriptions"),
    canceled_subscriptions_customer_service: value("canceled_subscriptions_customer_service"),
    canceled_subscriptions_low_quality: value("canceled_subscriptions_low_quality"),
    canceled_subscriptions_missing_features: value("canceled_subscriptions_missing_features"),
    canceled_subscriptions_switched_service: value("canceled_subscriptions_switched_service"),
    canceled_subscriptions_too_complex: value("canceled_subscriptions_too_complex"),
    canceled_subscriptions_too_expensive: value("canceled_subscriptions_too_expensive"),
    canceled_subscriptions_unused: value("canceled_subscriptions_unused"),
    canceled_subscriptions_other: value("canceled_subscriptions_other"),
    annual_recurring_revenue: mrr * 12,
    committed_annual_recurring_revenue: cmrr * 12,
    checkouts_conversion: ratio(value("succeeded_checkouts"), value("checkouts")),
    ltv: churnRate > 0 ? Math.max(0, Math.trunc((arpu - costPerUser) / churnRate)) : 0,
    gross_margin: cumulativeRevenue - cumulativeCosts,
    gross_margin_percentage: ratio(cumulativeRevenue - cumulativeCosts, cumulativeRevenue),
    cashflow: value("revenue") - value("costs"),
    average_seats_per_customer: 0,
    seat_utilization_rate: 0,
  };
}

/** The total of one metric over the periods, by its rule (anchor-behaviour-wave3.md §1.2–1.7). */
function total(
  definition: (typeof METRICS)[number],
  periods: readonly Record<MetricSlug, number>[],
  pricedOrders: number,
  computed: ReadonlySet<MetricSlug>,
): number {
  const sum = (slug: MetricSlug) => periods.reduce((acc, period) => acc + period[slug], 0);
  const last = (slug: MetricSlug) => periods.at(-1)?.[slug] ?? 0;
  const slug = definition.slug;
  switch (definition.total) {
    case "sum":
      return sum(slug);
    case "last":
      return last(slug);
    case "ratio_of_sums":
      if (slug === "checkouts_conversion") return ratio(sum("succeeded_checkouts"), sum("checkouts"));
      return ratio(sum(slug === "average_order_value" ? "revenue" : "net_revenue"), pricedOrders);
    // The hosted service divides by the last active subscriptions, and reads 0 when those are not computed.
    case "cost_per_user":
      return computed.has("active_subscriptions") ? ratio(sum("costs"), last("active_subscriptions")) : 0;
    case "last_active_subscriptions":
      return computed.has("active_subscriptions") ? last("active_subscriptions") : 0;
  }
}

export interface MetricsResult {
  slugs: readonly MetricSlug[];
  periods: { timestamp: string; values: Record<MetricSlug, number> }[];
  totals: Record<MetricSlug, number>;
}

export function createMetricsService(deps: Deps) {
  const { readDb } = deps;

  /** The request's refusals, all at once: unknown slugs, the range, the time zone. */
  async function issuesOf(query: MetricsQuery, timezone: string): Promise<ValidationIssue[]> {
    const issues: ValidationIssue[] = [];
    const unknown = unknownMetricSlugs(query.metrics ?? []);
    if (unknown.length > 0) {
      issues.push(fieldIssue(["query", "metrics"], `Invalid metric slugs: ${unknown.join(", ")}`, query.metrics));
    }
    const { start_date, end_date, interval } = query;
    const range = intervalRangeIssue(new Date(`${start_date}T00:00:00Z`), new Date(`${end_date}T00:00:00Z`), interval, {
      start_date,
      end_date,
      interval,
    });
    if (range) issues.push(range);
    if (!(await knownTimeZones(readDb)).has(timezone)) {
      issues.push(fieldIssue(["query", "timezone"], "Invalid timezone name.", timezone));
    }
    return issues;
  }

  return {
    /**
     * The metrics of the organizations the principal reads (narrowed by `organization_id`),
     * computed per request from the order rollups and the other source rows. Another organization's ids filter to nothing,
     * as the hosted service's filters do.
     */
    async compute(query: MetricsQuery, allowed: OrganizationScope): Promise<MetricsResult> {
      const timezone = query.timezone ?? "UTC";
      const issues = await issuesOf(query, timezone);
      if (issues.length > 0) throw new RequestValidationError(issues);

      const requested =
        query.metrics && query.metrics.length > 0 ? METRIC_SLUGS.filter((slug) => query.metrics?.includes(slug)) : METRIC_SLUGS;
      const computed = withDependencies(requested);
      const families = new Set<MetricFamily>();
      for (const slug of computed) {
        const family = FAMILY[slug];
        if (family) families.add(family);
      }
      const organizations = await metricOrganizations(readDb, allowed, asList(query.organization_id) ?? null);
      const defaults = new Set(organizations.map((organization) => organization.default_presentment_currency));
      // One default among the organizations read, else the hosted service's settlement currency.
      const [only] = defaults;
      const currency = query.currency ?? (defaults.size === 1 && only !== undefined ? only : "usd");
      const customerIds = asList(query.customer_id) ?? null;
      const productIds = asList(query.product_id) ?? null;
      const billingTypes = asList(query.billing_type) ?? null;
      // The rollups have no customer, and hold UTC hours: a customer filter or a zone whose
      // periods begin off the hour reads the orders themselves (docs/decisions.md, "Metrics: order rollups").
      const ordersFromRollups =
        families.has("orders") && customerIds === null && (await wholeHourZone(readDb, timezone, query.start_date, query.end_date));
      // The subscription day rollups have no product either, and answer periods bounded by local
      // midnights (not hours); the churn windows reach 30 days before the first period's start
      // (docs/decisions.md, "Metrics: subscription day rollups" and "Metrics: weeks, months and years from the day rollups").
      const subscriptionsFromRollups =
        (["subscriptions", "churn_rate", "churned", "canceled", "new_subscriptions"] as const).some((family) => families.has(family)) &&
        query.interval !== "hour" &&
        productIds === null &&
        billingTypes === null &&
        customerIds === null &&
        (await wholeHourZone(readDb, timezone, daysBefore(query.start_date, 31), query.end_date, query.interval));
      // The checkout rollups answer the same days, over the range alone (docs/decisions.md, "Metrics: checkout day rollups").
      const checkoutsFromRollups =
        families.has("checkouts") &&
        query.interval === "day" &&
        productIds === null &&
        billingTypes === null &&
        customerIds === null &&
        (await wholeHourZone(readDb, timezone, query.start_date, query.end_date));
      const sources: SourcePeriod[] = await metricSources(readDb, {
        startDate: query.start_date,
        endDate: query.end_date,
        interval: query.interval,
        timezone,
        families,
        filter: {
          organizationIds: organizations.map((organization) => organization.id),
          productIds,
          billingTypes,
          customerIds,
          currency,
        },
        ordersFromRollups,
        subscriptionsFromRollups,
        checkoutsFromRollups,
      });
      const running = { revenue: 0, net: 0, costs: 0 };
      const periods = sources.map((source) => ({ timestamp: source.timestamp, values: periodValues(source.values, running) }));
      const values = periods.map((period) => period.values);
      // Averages of amounts divide by the orders in the currency (docs/decisions.md, "Metrics: one currency").
      const pricedOrders = sources.reduce((acc, source) => acc + (source.values["priced_orders"] ?? 0), 0);
      const totals = Object.fromEntries(
        METRICS.map((definition) => [definition.slug, total(definition, values, pricedOrders, computed)]),
      ) as Record<MetricSlug, number>;
      return { slugs: requested, periods, totals };
    },
  };
}
export type MetricsService = ReturnType<typeof createMetricsService>;

/** The JSON answer: only the requested metrics, in periods, totals and their descriptions. */
export function metricsResponse(result: MetricsResult): MetricsResponse {
  const pick = (values: Record<MetricSlug, number>): Values => Object.fromEntries(result.slugs.map((slug) => [slug, values[slug]]));
  const definitions = new Map<string, MetricDefinition>(METRICS.map((definition) => [definition.slug, definition]));
  return {
    periods: result.periods.map((period) => ({ timestamp: period.timestamp, ...pick(period.values) })),
    totals: pick(result.totals),
    metrics: Object.fromEntries(
      result.slugs.map((slug) => {
        const { display_name, type } = definitions.get(slug) as MetricDefinition;
        return [slug, { slug, display_name, type }];
      }),
    ),
  };
}
