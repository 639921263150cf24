// The seller's dashboard: the sign-in views, or the frame and the page the address names. Every value
// shown comes from the public API through the dashboard's proxy and is written as text.
import type { DashboardPageData } from "../src/modules/dashboard-page/dashboard-page.render.ts";
import { configureApi } from "./dashboard/api.ts";
import { buildLayout, notFoundPage } from "./dashboard/layout.ts";
import { startRouter } from "./dashboard/router.ts";
import { ROUTES } from "./dashboard/routes.ts";
import { chooseOrganizationView, signInView } from "./dashboard/sign-in.ts";

const data = JSON.parse(document.getElementById("page-data")?.textContent ?? "null") as DashboardPageData;
const root = document.getElementById("dashboard")!;

function start(): void {
  if (data.view === "sign-in") signInView(root, data);
  else if (data.view === "choose-organization") chooseOrganizationView(root, data);
  else {
    configureApi({ csrfToken: data.csrfToken, organizationId: data.organization.id });
    const layout = buildLayout(root, data, ROUTES);
    startRouter({ routes: ROUTES, main: layout.main, data, onRoute: layout.markCurrent, notFound: notFoundPage });
  }
  root.setAttribute("aria-busy", "false");
  if (data.view !== "app") document.documentElement.dataset.ready = "true";
}

start();
