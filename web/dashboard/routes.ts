// Every page of the dashboard, in the navigation's order. A page is a function building itself into
// `main` from the public API (through the proxy); add a page here to route to it.
import { organizationsPage } from "./organizations.ts";
import { overviewPage } from "./overview.ts";
import type { DashboardRoute } from "./router.ts";

export const ROUTES: readonly DashboardRoute[] = [
  { pattern: "/", title: "Overview", nav: "Overview", render: overviewPage },
  { pattern: "/organizations", title: "Switch organization", render: organizationsPage },
];
