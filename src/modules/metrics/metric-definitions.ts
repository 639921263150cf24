/**
 * The metrics `GET /v1/metrics/` computes, in the hosted service's canonical order (the order of
 * `MetricPeriod` in the reference, which the CSV export's columns follow too), with the name and
 * unit it publishes and how a period series folds into the total (anchor-behaviour-wave3.md §1).
 */
export type MetricType = "scalar" | "currency" | "currency_sub_cent" | "percentage";

/**
 * How the totals row is made: the sum of the periods, the last period, or a rule of its own
 * (a ratio of sums, or the hosted service's quirks for the cost metrics).
 */
export type MetricTotal = "sum" | "last" | "ratio_of_sums" | "cost_per_user" | "last_active_subscriptions";

export interface MetricDefinition {
  slug: string;
  display_name: string;
  type: MetricType;
  total: MetricTotal;
}

const metric = <S extends string>(slug: S, display_name: string, type: MetricType, total: MetricTotal) => ({
  slug,
  display_name,
  type,
  total,
});

export const METRICS = [
  metric("active_subscriptions", "Active Subscriptions", "scalar", "last"),
  metric("committed_subscriptions", "Committed Subscriptions", "scalar", "last"),
  metric("monthly_recurring_revenue", "Monthly Recurring Revenue", "currency", "last"),
  metric("trial_monthly_recurring_revenue", "Trialing MRR Including Cancelations", "currency", "last"),
  metric("committed_monthly_recurring_revenue", "Committed Monthly Recurring Revenue", "currency", "last"),
  metric("trial_committed_monthly_recurring_revenue", "Trialing Committed MRR", "currency", "last"),
  metric("average_revenue_per_user", "Average Revenue Per User", "currency", "last"),
  metric("checkouts", "Checkouts", "scalar", "sum"),
  metric("succeeded_checkouts", "Succeeded Checkouts", "scalar", "sum"),
  metric("churned_subscriptions", "Churned Subscriptions", "scalar", "sum"),
  metric("churn_rate", "Churn Rate", "percentage", "last"),
  metric("seats_total", "Total Seats", "scalar", "last"),
  metric("seats_claimed", "Claimed Seats", "scalar", "last"),
  metric("seats_pending", "Pending Seats", "scalar", "last"),
  metric("seat_customers", "Active Customers", "scalar", "last"),
  metric("new_seat_customers", "New Seat Customers", "scalar", "sum"),
  metric("churned_seat_customers", "Churned Seat Customers", "scalar", "sum"),
  metric("orders", "Orders", "scalar", "sum"),
  metric("revenue", "Revenue", "currency", "sum"),
  metric("net_revenue", "Net Revenue", "currency", "sum"),
  metric("cumulative_revenue", "Cumulative Revenue", "currency", "last"),
  metric("net_cumulative_revenue", "Net Cumulative Revenue", "currency", "last"),
  metric("costs", "Costs", "currency_sub_cent", "sum"),
  metric("cumulative_costs", "Cumulative Costs", "currency_sub_cent", "last"),
  metric("average_order_value", "Average Order Value", "currency", "ratio_of_sums"),
  metric("net_average_order_value", "Net Average Order Value", "currency", "ratio_of_sums"),
  metric("cost_per_user", "Cost Per User", "currency_sub_cent", "cost_per_user"),
  metric("active_user_by_event", "Active Users", "scalar", "last_active_subscriptions"),
  metric("one_time_products", "One-Time Products", "scalar", "sum"),
  metric("one_time_products_revenue", "One-Time Products Revenue", "currency", "sum"),
  metric("one_time_products_net_revenue", "One-Time Products Net Revenue", "currency", "sum"),
  metric("new_subscriptions", "New Subscriptions", "scalar", "sum"),
  metric("new_subscriptions_revenue", "New Subscriptions Revenue", "currency", "sum"),
  metric("new_subscriptions_net_revenue", "New Subscriptions Net Revenue", "currency", "sum"),
  metric("renewed_subscriptions", "Renewed Subscriptions", "scalar", "sum"),
  metric("renewed_subscriptions_revenue", "Renewed Subscriptions Revenue", "currency", "sum"),
  metric("renewed_subscriptions_net_revenue", "Renewed Subscriptions Net Revenue", "currency", "sum"),
  metric("canceled_subscriptions", "Canceled Subscriptions", "scalar", "sum"),
  metric("canceled_subscriptions_customer_service", "Canceled Subscriptions - Customer Service", "scalar", "sum"),
  metric("canceled_subscriptions_low_quality", "Canceled Subscriptions - Low Quality", "scalar", "sum"),
  metric("canceled_subscriptions_missing_features", "Canceled Subscriptions - Missing Features", "scalar", "sum"),
  metric("canceled_subscriptions_switched_service", "Canceled Subscriptions - Switched Service", "scalar", "sum"),
  metric("canceled_subscriptions_too_complex", "Canceled Subscriptions - Too Complex", "scalar", "sum"),
  metric("canceled_subscriptions_too_expensive", "Canceled Subscriptions - Too Expensive", "scalar", "sum"),
  metric("canceled_subscriptions_unused", "Canceled Subscriptions - Unused", "scalar", "sum"),
  metric("canceled_subscriptions_other", "Canceled Subscriptions - Other", "scalar", "sum"),
  metric("annual_recurring_revenue", "Annual Recurring Revenue", "currency", "last"),
  metric("committed_annual_recurring_revenue", "Committed Annual Recurring Revenue", "currency", "last"),
  metric("checkouts_conversion", "Checkouts Conversion Rate", "percentage", "ratio_of_sums"),
  metric("ltv", "Lifetime Value", "currency", "last"),
  metric("gross_margin", "Gross Margin", "currency", "last"),
  metric("gross_margin_percentage", "Gross Margin %", "percentage", "last"),
  metric("cashflow", "Cashflow", "currency", "sum"),
  metric("average_seats_per_customer", "Average Seats per Customer", "scalar", "last"),
  metric("seat_utilization_rate", "Seat Utilization Rate", "percentage", "last"),
] as const satisfies readonly MetricDefinition[];

export type MetricSlug = (typeof METRICS)[number]["slug"];

export const METRIC_SLUGS: readonly MetricSlug[] = METRICS.map((definition) => definition.slug);

const KNOWN = new Set<string>(METRIC_SLUGS);
export const isMetricSlug = (slug: string): slug is MetricSlug => KNOWN.has(slug);

/** The slugs that name no metric, sorted and once each, as the hosted service lists them in its 422. */
export const unknownMetricSlugs = (slugs: readonly string[]): string[] => [...new Set(slugs.filter((slug) => !isMetricSlug(slug)))].sort();

/**
 * What a metric is computed from besides itself: meta metrics read others, and two totals read
 * `active_subscriptions` only when it is computed anyway (the hosted service's quirk, kept).
 */
export const METRIC_DEPENDENCIES: Partial<Record<MetricSlug, readonly MetricSlug[]>> = {
  average_revenue_per_user: ["monthly_recurring_revenue"],
  cumulative_revenue: ["revenue"],
  net_cumulative_revenue: ["net_revenue"],
  cumulative_costs: ["costs"],
  average_order_value: ["revenue", "orders"],
  net_average_order_value: ["net_revenue", "orders"],
  cost_per_user: ["costs", "active_user_by_event"],
  seats_pending: ["seats_total", "seats_claimed"],
  annual_recurring_revenue: ["monthly_recurring_revenue"],
  committed_annual_recurring_revenue: ["committed_monthly_recurring_revenue"],
  checkouts_conversion: ["checkouts", "succeeded_checkouts"],
  ltv: ["average_revenue_per_user", "cost_per_user", "churn_rate"],
  gross_margin: ["cumulative_revenue", "cumulative_costs"],
  gross_margin_percentage: ["cumulative_revenue", "cumulative_costs"],
  cashflow: ["revenue", "costs"],
  average_seats_per_customer: ["seats_total", "seat_customers"],
  seat_utilization_rate: ["seats_total", "seats_claimed"],
};

/** The requested slugs and everything they are computed from, transitively. */
export function withDependencies(requested: readonly MetricSlug[]): Set<MetricSlug> {
  const computed = new Set<MetricSlug>();
  const visit = (slug: MetricSlug) => {
    if (computed.has(slug)) return;
    computed.add(slug);
    for (const dependency of METRIC_DEPENDENCIES[slug] ?? []) visit(dependency);
  };
  requested.forEach(visit);
  return computed;
}
