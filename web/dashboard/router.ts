// Client-side routing under /dashboard/: every address is served the same document, and the page for
// the path is built here. Links marked `data-route` navigate without a reload; Back and Forward work.
import type { DashboardPageData } from "../../src/modules/dashboard-page/dashboard-page.render.ts";

export type AppData = Extract<DashboardPageData, { view: "app" }>;

export interface PageContext {
  main: HTMLElement;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  data: AppData;
  /** Moves to another dashboard address (pushing it on the history). */
  navigate: (href: string) => void;
  /** Writes the query of the current address (filters, period) without a new history entry. */
  replaceQuery: (query: URLSearchParams) => void;
}

export interface DashboardRoute {
  /** Under /dashboard: `/orders/:id`. */
  pattern: string;
  title: string;
  /** The navigation's label, for the pages listed there. */
  nav?: string;
  render: (context: PageContext) => Promise<void>;
}

export const BASE = "/dashboard";

function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const value = have[index]!;
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}

export function startRouter(options: {
  routes: readonly DashboardRoute[];
  main: HTMLElement;
  data: AppData;
  onRoute(route: DashboardRoute | null): void;
  notFound(main: HTMLElement): void;
}): void {
  const { routes, main, data } = options;
  let generation = 0;

  async function show(focus: boolean): Promise<void> {
    const current = (generation += 1);
    const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) || "/" : "/";
    const found = routes.map((route) => ({ route, params: match(route.pattern, path) })).find((r) => r.params !== null);
    options.onRoute(found?.route ?? null);
    main.setAttribute("aria-busy", "true");
    if (!found) options.notFound(main);
    else {
      document.title = `${found.route.title} · ${data.organization.name}`;
      await found.route.render({
        main,
        params: found.params!,
        query: new URLSearchParams(window.location.search),
        data,
        navigate,
        replaceQuery: (query) => window.history.replaceState(null, "", `${window.location.pathname}${query.size ? `?${query}` : ""}`),
      });
    }
    // A newer navigation started meanwhile: it owns the page now.
    if (current !== generation) return;
    main.setAttribute("aria-busy", "false");
    if (focus) main.querySelector<HTMLElement>("h1")?.focus();
    document.documentElement.dataset.ready = "true";
  }

  function navigate(href: string): void {
    window.history.pushState(null, "", href);
    void show(true);
  }

  document.addEventListener("click", (event) => {
    const anchor = (event.target as Element | null)?.closest?.("a[data-route]");
    if (!(anchor instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(anchor.getAttribute("href") ?? `${BASE}/`);
  });
  window.addEventListener("popstate", () => void show(true));
  void show(false);
}
