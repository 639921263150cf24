import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { expectAccessible } from "./browser.ts";
import type { TestContext } from "./context.ts";

export interface DashboardSignIn {
  viewport?: { width: number; height: number };
  /** Called for every dialog the page opens (an injected script would open one); each is dismissed. */
  onDialog?: (message: string) => void;
  /** The organization to choose when the token sees several. */
  organizationName?: string;
  /** Grants the page the clipboard (the copy buttons). */
  clipboard?: boolean;
}

/** A browser context signed in to the dashboard with the token pasted into the form, on its Overview. */
export async function signInToDashboard(
  browser: Browser,
  origin: string,
  token: string,
  options: DashboardSignIn = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
  if (options.clipboard) await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const page = await context.newPage();
  const { onDialog } = options;
  if (onDialog)
    page.on("dialog", (dialog) => {
      onDialog(dialog.message());
      void dialog.dismiss();
    });
  await page.goto(`${origin}/dashboard/`);
  await page.getByLabel("Access token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  const overview = page.getByRole("heading", { name: "Overview" });
  const choose = page.getByRole("heading", { name: "Choose an organization" });
  await overview.or(choose).waitFor();
  if (await choose.isVisible()) {
    if (options.organizationName === undefined) throw new Error("The token sees several organizations: say which to choose.");
    await page.getByRole("button", { name: options.organizationName }).click();
    await overview.waitFor();
  }
  return { context, page };
}

/** Waits until a dashboard page is built: its heading shown and its data loaded. */
export async function dashboardPageReady(page: Page, heading: string | RegExp): Promise<void> {
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await page.locator("html[data-ready=true] main[aria-busy=false]").waitFor();
}

/** The page at both widths: no serious or critical axe violation, a full-page screenshot each. */
export async function checkDashboardWidths(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await expectAccessible(page);
    await page.screenshot({ path: `test-results/dashboard-${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** An API call that sets up a dashboard test's world: any answer but a success fails the test, with the body. */
export async function callApi<T>(
  ctx: TestContext,
  token: string,
  method: "GET" | "POST" | "PATCH",
  url: string,
  payload?: object,
): Promise<T> {
  const response = await ctx.request({ method, url, token, ...(payload ? { payload } : {}) });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json<T>();
}
