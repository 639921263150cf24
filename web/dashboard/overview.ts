// Overview: the period's revenue, orders, MRR and active subscriptions, each against the period just
// before it, and their charts over time, all from GET /v1/metrics/.
import { currentOrganizationId, get } from "./api.ts";
import { chart } from "./charts.ts";
import type { PageContext } from "./router.ts";
import { count, errorNotice, fill, h, loading, money, pageHeading } from "./ui.ts";

const FIGURES = [
  { slug: "revenue", label: "Revenue", currency: true },
  { slug: "orders", label: "Orders", currency: false },
  { slug: "monthly_recurring_revenue", label: "MRR", currency: true },
  { slug: "active_subscriptions", label: "Active subscriptions", currency: false },
] as const;
type Slug = (typeof FIGURES)[number]["slug"];

const PERIODS = [
  { value: "7d", label: "Last 7 days", days: 7, interval: "day" },
  { value: "30d", label: "Last 30 days", days: 30, interval: "day" },
  { value: "90d", label: "Last 90 days", days: 90, interval: "day" },
  { value: "365d", label: "Last 12 months", days: 365, interval: "month" },
] as const;
type Period = (typeof PERIODS)[number];

interface MetricsAnswer {
  periods: ({ timestamp: string } & Partial<Record<Slug, number>>)[];
  totals: Partial<Record<Slug, number>>;
}

const DAY_MS = 86_400_000;
const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const timezone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** The period's dates (today last) and the same number of days just before it. */
function ranges(period: Period, todayMs: number) {
  const end = todayMs;
  const start = end - (period.days - 1) * DAY_MS;
  return {
    current: { start: isoDate(start), end: isoDate(end) },
    previous: { start: isoDate(start - period.days * DAY_MS), end: isoDate(start - DAY_MS) },
  };
}

const metricsOf = (range: { start: string; end: string }, interval: string) =>
  get<MetricsAnswer>("metrics/", {
    start_date: range.start,
    end_date: range.end,
    interval,
    timezone: timezone(),
    organization_id: currentOrganizationId(),
    metrics: FIGURES.map((f) => f.slug),
  });

/** The change against the previous period, in words a screen reader says well. */
function change(current: number, previous: number): { text: string; direction: "up" | "down" | "flat" } {
  if (current === previous) return { text: "No change vs previous period", direction: "flat" };
  if (previous === 0) return { text: "Up from none in the previous period", direction: "up" };
  const percent = ((current - previous) / Math.abs(previous)) * 100;
  const rounded = Math.abs(percent) >= 10 ? Math.round(Math.abs(percent)) : Math.round(Math.abs(percent) * 10) / 10;
  return { text: `${percent > 0 ? "Up" : "Down"} ${rounded}% vs previous period`, direction: percent > 0 ? "up" : "down" };
}

export async function overviewPage(context: PageContext): Promise<void> {
  const { main, data } = context;
  const currency = data.organization.currency;
  const chosen = PERIODS.find((p) => p.value === context.query.get("period")) ?? PERIODS[1];
  const select = h(
    "select",
    { id: "period", name: "period" },
    ...PERIODS.map((p) => h("option", { value: p.value, selected: p === chosen }, p.label)),
  );
  select.addEventListener("change", () => {
    context.navigate(`/dashboard/?${new URLSearchParams({ period: select.value })}`);
  });
  const results = h("div", { class: "overview", "aria-live": "polite" }, loading());
  fill(main, pageHeading("Overview"), h("div", { class: "toolbar" }, h("label", { for: "period" }, "Period"), select), results);

  const { current, previous } = ranges(chosen, Date.now());
  const [now, before] = await Promise.all([metricsOf(current, chosen.interval), metricsOf(previous, chosen.interval)]);
  if (!now.ok) return fill(results, errorNotice(now.error));
  const format = (currencyFigure: boolean) => (value: number) => (currencyFigure ? money(Math.round(value), currency) : count(value));
  const periodName = (timestamp: string) =>
    new Intl.DateTimeFormat(
      "en",
      chosen.interval === "month" ? { month: "short", year: "numeric", timeZone: "UTC" } : { dateStyle: "medium", timeZone: "UTC" },
    ).format(new Date(timestamp));
  const figures = FIGURES.map((figure) => {
    const value = now.body.totals[figure.slug] ?? 0;
    const delta = change(value, before.ok ? (before.body.totals[figure.slug] ?? 0) : 0);
    return h(
      "div",
      { class: "figure", "data-metric": figure.slug },
      h("dt", {}, figure.label),
      h("dd", { class: "figure-value" }, format(figure.currency)(value)),
      h("dd", { class: `figure-change figure-${delta.direction}` }, before.ok ? delta.text : "Previous period unavailable"),
    );
  });
  const charts = FIGURES.map((figure) =>
    chart({
      title: figure.label,
      series: { timestamps: now.body.periods.map((p) => p.timestamp), values: now.body.periods.map((p) => p[figure.slug] ?? 0) },
      format: format(figure.currency),
      period: periodName,
    }),
  );
  fill(
    results,
    h("p", { class: "period-range" }, `${current.start} to ${current.end}, compared with ${previous.start} to ${previous.end}`),
    h("dl", { class: "figures" }, ...figures),
    h("div", { class: "charts" }, ...charts),
  );
}
