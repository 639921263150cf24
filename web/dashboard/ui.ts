// Building blocks of the dashboard's pages: headings, tables, notices and formats. Everything is built
// with `h` (textContent and attributes only), so a value from the API never becomes markup.
import { h } from "../dom.ts";
import type { ApiError } from "./api.ts";

export { h };

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** An amount in minor units, written in its currency (`$12.50`). */
export function money(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = moneyFormats.get(code);
  if (!format) {
    format = new Intl.NumberFormat("en", { style: "currency", currency: code });
    moneyFormats.set(code, format);
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

/** Minor units per major unit of a currency (100 for USD, 1 for JPY). */
export const minorPerMajor = (currency: string): number =>
  10 ** (new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2);

const dateTimeFormat = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });
const dateFormat = new Intl.DateTimeFormat("en", { dateStyle: "medium" });

export const dateTime = (iso: string | null | undefined): string => (iso ? dateTimeFormat.format(new Date(iso)) : "—");
export const date = (iso: string | null | undefined): string => (iso ? dateFormat.format(new Date(iso)) : "—");
export const count = (value: number): string => new Intl.NumberFormat("en").format(value);

/** The page's heading; the router moves focus to it after a navigation. */
export const pageHeading = (text: string): HTMLHeadingElement => h("h1", { tabindex: "-1", class: "page-title" }, text);

export interface Column<T> {
  label: string;
  cell: (row: T) => Node | string;
  /** Right-aligned (amounts, counts). */
  numeric?: boolean;
}

/** A data table with a caption; an empty list says so in one row. */
export function table<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[], empty = "Nothing yet."): HTMLElement {
  const head = h("tr", {}, ...columns.map((c) => h("th", { scope: "col", class: c.numeric ? "numeric" : null }, c.label)));
  const body = rows.length
    ? rows.map((row) => h("tr", {}, ...columns.map((c) => h("td", { class: c.numeric ? "numeric" : null }, c.cell(row)))))
    : [h("tr", {}, h("td", { colspan: columns.length, class: "empty" }, empty))];
  return h(
    "div",
    { class: "table-scroll", role: "region", "aria-label": caption, tabindex: "0" },
    h("table", {}, h("caption", {}, caption), h("thead", {}, head), h("tbody", {}, ...body)),
  );
}

/** A link inside the dashboard (the router takes the click; the address works when opened anew). */
export const link = (href: string, text: string): HTMLAnchorElement => h("a", { href, "data-route": "" }, text);

/** A message in the page's live region: success, or a failure with the API's words. */
export function notice(kind: "success" | "error" | "info", text: string): HTMLElement {
  return h("p", { class: `notice notice-${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

export const errorNotice = (error: ApiError): HTMLElement => notice("error", error.message);

/** Replaces what an element holds. */
export function fill(target: Element, ...children: (Node | string | null)[]): void {
  target.replaceChildren(...children.filter((c): c is Node | string => c !== null));
}

export const button = (text: string, attributes: Record<string, string | boolean | null> = {}): HTMLButtonElement =>
  h("button", { type: "button", class: "button", ...attributes }, text);

export const loading = (): HTMLElement => h("p", { class: "loading", role: "status" }, "Loading…");

/** A term and its value in a description list. */
export const facts = (pairs: readonly (readonly [string, Node | string])[]): HTMLElement =>
  h("dl", { class: "dashboard-facts" }, ...pairs.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]));
