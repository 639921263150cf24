// Charts of a metric over time, drawn by uPlot (bundled into the dashboard's script by esbuild; its
// stylesheet is inlined with the page's). A chart is a picture for those who see it: the same numbers
// are in a table beside it, which screen readers and keyboard users read instead.
import uPlot from "uplot";
import { h, table } from "./ui.ts";

export interface Series {
  /** Period starts, ISO 8601. */
  timestamps: readonly string[];
  values: readonly number[];
}

export interface ChartSpec {
  title: string;
  series: Series;
  /** How a value is written (an amount in its currency, a count). */
  format(value: number): string;
  /** How a period is named in the table. */
  period(timestamp: string): string;
}

const HEIGHT = 220;

/** A figure: the chart, its caption, and its numbers as a table (shown under a disclosure). */
export function chart(spec: ChartSpec): HTMLElement {
  const plot = h("div", {
    class: "chart-canvas",
    role: "img",
    "aria-label": `${spec.title}: chart; the numbers are in the table below it.`,
  });
  const rows = spec.series.timestamps.map((timestamp, index) => ({ timestamp, value: spec.series.values[index] ?? 0 }));
  const numbers = h(
    "details",
    { class: "chart-numbers" },
    h("summary", {}, `${spec.title}: the numbers`),
    table(
      spec.title,
      [
        { label: "Period", cell: (row: (typeof rows)[number]) => spec.period(row.timestamp) },
        { label: spec.title, cell: (row: (typeof rows)[number]) => spec.format(row.value), numeric: true },
      ],
      rows,
    ),
  );
  const figure = h("figure", { class: "chart" }, h("figcaption", {}, spec.title), plot, numbers);
  // Drawn once the figure is in the page, at its width, and again when that changes.
  requestAnimationFrame(() => draw(plot, spec));
  return figure;
}

/** A theme colour as the canvas needs it (`rgb(…)`): custom properties hold `light-dark(…)`, which only an element resolves. */
function resolvedColour(target: HTMLElement, variable: string): string {
  const probe = h("span", { class: `colour-probe colour-${variable}` });
  target.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
}

const translucent = (rgb: string): string => rgb.replace(/^rgb\((.*)\)$/, "rgba($1, 0.15)");

function draw(target: HTMLElement, spec: ChartSpec): void {
  if (!target.isConnected) return;
  const stroke = resolvedColour(target, "accent");
  const text = resolvedColour(target, "muted");
  const width = Math.max(240, target.clientWidth);
  const xs = spec.series.timestamps.map((t) => Date.parse(t) / 1000);
  const axis = { stroke: text, grid: { stroke: "rgba(128,128,128,0.2)" }, ticks: { stroke: "rgba(128,128,128,0.3)" } };
  const plot = new uPlot(
    {
      width,
      height: HEIGHT,
      legend: { show: false },
      cursor: { show: true, drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [axis, { ...axis, size: 72, values: (_u, splits) => splits.map((v) => spec.format(v)) }],
      series: [{}, { label: spec.title, stroke, width: 2, fill: translucent(stroke), points: { show: xs.length < 40 } }],
    },
    [xs, [...spec.series.values]],
    target,
  );
  const observer = new ResizeObserver(() => {
    if (!target.isConnected) return observer.disconnect();
    plot.setSize({ width: Math.max(240, target.clientWidth), height: HEIGHT });
  });
  observer.observe(target);
}
