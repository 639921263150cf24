// Lists a page at a time, as the API serves them (`page`, `limit`, `pagination.max_page`): the page
// is part of the address (`?page=3`, beside the filters), so Back, Forward and a shared link keep it,
// and the links to the other pages are plain links in a labelled navigation, reachable by Tab. A page
// holding two lists (a customer's orders and subscriptions) names each list's page apart
// (`?orders_page=2`), so moving through one keeps the other where it is.
import type { Query } from "./api.ts";
import { BASE } from "./router.ts";
import { count, h, table, type Column } from "./ui.ts";

export const PAGE_SIZE = 20;

export interface Pagination {
  total_count: number;
  max_page: number;
}

/** The page the address asks for (1 when it names none, or nonsense). */
export const pageOf = (query: URLSearchParams, param = "page"): number => Math.max(1, Math.floor(Number(query.get(param))) || 1);

/** The list query's page and size for the address's page. */
export const pageQuery = (query: URLSearchParams, param = "page"): Query => ({ page: pageOf(query, param), limit: PAGE_SIZE });

/** The current address with another page (its filters kept; page 1 is the address without one). */
function hrefOf(page: number, param: string): string {
  const query = new URLSearchParams(window.location.search);
  if (page > 1) query.set(param, String(page));
  else query.delete(param);
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname : `${BASE}/`;
  return `${path}${query.size ? `?${query}` : ""}`;
}

/** A link to a page, or the same words as plain text where there is no such page. */
function step(text: string, page: number, available: boolean, param: string, rel?: string): HTMLElement {
  if (!available) return h("span", { class: "pager-step", "aria-disabled": "true" }, text);
  return h("a", { href: hrefOf(page, param), "data-route": "", class: "pager-step", rel: rel ?? null }, text);
}

/** The navigation between the pages of a list; null when it fits on one. */
export function pager(what: string, page: number, pagination: Pagination, param = "page"): HTMLElement | null {
  const last = Math.max(1, pagination.max_page);
  if (last <= 1 && page <= 1) return null;
  return h(
    "nav",
    { class: "pager", "aria-label": `Pages of ${what.toLowerCase()}` },
    step("First page", 1, page > 1, param),
    step("Previous page", Math.min(page - 1, last), page > 1, param, "prev"),
    h("span", { class: "pager-position" }, `Page ${count(page)} of ${count(last)}`),
    step("Next page", page + 1, page < last, param, "next"),
    step("Last page", last, page < last, param),
  );
}

/**
 * One page of a list: its table (the caption says which page, of how many rows) and the links to
 * the other pages.
 */
export function pagedTable<T>(
  caption: string,
  columns: readonly Column<T>[],
  answer: { items: readonly T[]; pagination: Pagination },
  page: number,
  empty: string,
  /** The address's parameter holding this list's page. */
  param = "page",
): HTMLElement {
  const { items, pagination } = answer;
  const last = Math.max(1, pagination.max_page);
  const where = last > 1 || page > 1 ? `, page ${count(page)} of ${count(last)}` : "";
  const beyond = page > last ? "There is no such page. Go to the first page." : empty;
  return h(
    "div",
    { class: "paged" },
    table(`${caption}${where} (${count(pagination.total_count)} in all)`, columns, items, beyond),
    pager(caption, page, pagination, param),
  );
}
