// The frame around every page once signed in: a skip link, the organization and session controls, the
// navigation (a wrapping row at 390 px, a column from 900 px), and the main region pages fill.
import { sessionPost } from "./api.ts";
import { BASE, type AppData, type DashboardRoute } from "./router.ts";
import { button, h, notice } from "./ui.ts";

export interface Layout {
  main: HTMLElement;
  /** Marks the navigation's link of the current page. */
  markCurrent: (route: DashboardRoute | null) => void;
}

async function signOut(): Promise<void> {
  await sessionPost("session/sign-out");
  window.location.assign(`${BASE}/?reason=signed-out`);
}

export function buildLayout(root: HTMLElement, data: AppData, routes: readonly DashboardRoute[]): Layout {
  const main = h("main", { id: "main", class: "dashboard-main", tabindex: "-1" });
  const links = routes
    .filter((route) => route.nav)
    .map((route) => ({
      route,
      anchor: h("a", { href: `${BASE}${route.pattern === "/" ? "/" : route.pattern}`, "data-route": "" }, route.nav!),
    }));
  const signOutButton = button("Sign out", { class: "button button-quiet" });
  signOutButton.addEventListener("click", () => void signOut());
  const switchLink =
    data.organizationCount > 1 ? h("a", { href: `${BASE}/organizations`, class: "switch", "data-route": "" }, "Switch organization") : null;
  const header = h(
    "header",
    { class: "dashboard-header" },
    h("p", { class: "dashboard-organization" }, h("span", { class: "visually-hidden" }, "Organization: "), data.organization.name),
    h("div", { class: "dashboard-session" }, switchLink, signOutButton),
  );
  const nav = h(
    "nav",
    { class: "dashboard-nav", "aria-label": "Dashboard" },
    h("ul", {}, ...links.map(({ anchor }) => h("li", {}, anchor))),
  );
  root.replaceChildren(
    h("a", { href: "#main", class: "skip-link" }, "Skip to content"),
    header,
    h("div", { class: "dashboard-body" }, nav, main),
  );
  return {
    main,
    markCurrent(route) {
      // A page under a listed one (an order under Orders) marks its section.
      const section = (pattern: string) => pattern.split("/")[1];
      for (const { route: linked, anchor } of links) {
        if (linked === route) anchor.setAttribute("aria-current", "page");
        else if (route && section(linked.pattern) && section(linked.pattern) === section(route.pattern))
          anchor.setAttribute("aria-current", "true");
        else anchor.removeAttribute("aria-current");
      }
    },
  };
}

export function notFoundPage(main: HTMLElement): void {
  main.replaceChildren(
    h("h1", { tabindex: "-1", class: "page-title" }, "Page not found"),
    notice("info", "There is no dashboard page at this address."),
    h("p", {}, h("a", { href: `${BASE}/`, "data-route": "" }, "Go to the overview")),
  );
}
