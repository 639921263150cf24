import { htmlDocument, type PageAssets, type Theme } from "../../pages/html-page.ts";
import type { DashboardOrganization, SignedInAs } from "./dashboard-access.ts";

/** Why the sign-in form is shown again. */
export type SignInReason = "signed-out" | "expired" | null;

/** What the dashboard's script reads from `#page-data`: which view to build, and the session's facts. */
export type DashboardPageData =
  | { view: "sign-in"; reason: SignInReason }
  | { view: "choose-organization"; csrfToken: string; organizations: DashboardOrganization[] }
  | {
      view: "app";
      csrfToken: string;
      organization: DashboardOrganization;
      /** More than one: the header offers to switch. */
      organizationCount: number;
      signedInAs: SignedInAs;
    };

/**
 * The dashboard's document: an empty frame the script fills (it routes by the address under
 * `/dashboard/`); without the script, a sentence saying it is needed.
 */
export function dashboardPage(data: DashboardPageData, theme: Theme, assets: PageAssets): string {
  return htmlDocument({
    title: data.view === "app" ? `${data.organization.name} · Dashboard` : "Dashboard · Sign in",
    theme,
    assets,
    data,
    body: `<div id="dashboard" class="dashboard" aria-busy="true"><noscript><p>The dashboard needs JavaScript.</p></noscript></div>`,
  });
}
