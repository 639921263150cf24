// Usage: the organization's meters (GET /v1/meters/) and one meter's quantities over the last 30
// days (GET /v1/meters/{id}/quantities), charted with its numbers in a table (charts.ts).
import { get, list } from "./api.ts";
import { chart } from "./charts.ts";
import { pagedTable, pageOf, pageQuery } from "./pager.ts";
import type { PageContext } from "./router.ts";
import { count, date, errorNotice, facts, fill, h, link, loading, pageHeading } from "./ui.ts";

interface Meter {
  id: string;
  name: string;
  unit?: string;
  aggregation: { func: string; property?: string | null };
  created_at: string;
  archived_at: string | null;
}

interface Quantities {
  quantities: { timestamp: string; quantity: number }[];
  total: number;
}

const DAYS = 30;
const DAY_MS = 86_400_000;

export async function usagePage(context: PageContext): Promise<void> {
  const results = h("div", { "aria-live": "polite" }, loading());
  fill(context.main, pageHeading("Usage"), results);
  const answer = await list<Meter>("meters/", { ...pageQuery(context.query), sorting: "name" });
  if (!answer.ok) return fill(results, errorNotice(answer.error));
  fill(
    results,
    pagedTable(
      "Meters",
      [
        { label: "Meter", cell: (m: Meter) => link(`/dashboard/usage/${m.id}`, m.name) },
        {
          label: "Aggregation",
          cell: (m) => (m.aggregation.property ? `${m.aggregation.func} of ${m.aggregation.property}` : m.aggregation.func),
        },
        { label: "Created", cell: (m) => date(m.created_at) },
        { label: "Archived", cell: (m) => (m.archived_at ? date(m.archived_at) : "No") },
      ],
      answer.body,
      pageOf(context.query),
      "No meters yet.",
    ),
  );
}

export async function meterPage(context: PageContext): Promise<void> {
  const heading = pageHeading("Meter");
  const body = h("div", { "aria-live": "polite" }, loading());
  fill(context.main, heading, body);
  const id = encodeURIComponent(context.params.id ?? "");
  // The last 30 days by day, today included, in the browser's time zone.
  const end = new Date();
  const start = new Date(end.getTime() - (DAYS - 1) * DAY_MS);
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const [meter, quantities] = await Promise.all([
    get<Meter>(`meters/${id}`),
    get<Quantities>(`meters/${id}/quantities`, {
      start_timestamp: `${start.toISOString().slice(0, 10)}T00:00:00Z`,
      end_timestamp: end.toISOString(),
      interval: "day",
      timezone,
    }),
  ]);
  if (!meter.ok) return fill(body, errorNotice(meter.error), h("p", {}, link("/dashboard/usage", "Back to usage")));
  heading.textContent = meter.body.name;
  if (!quantities.ok) return fill(body, errorNotice(quantities.error));
  fill(
    body,
    facts([
      ["Aggregation", meter.body.aggregation.func],
      ["Total, last 30 days", count(quantities.body.total)],
    ]),
    chart({
      title: `${meter.body.name} per day`,
      series: { timestamps: quantities.body.quantities.map((q) => q.timestamp), values: quantities.body.quantities.map((q) => q.quantity) },
      format: count,
      period: (timestamp) => date(timestamp),
    }),
  );
}
