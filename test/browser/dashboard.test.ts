import { mkdir } from "node:fs/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, launchBrowser, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import type { TestContext } from "../helpers/context.ts";
import { createOrganization, createOrganizationToken, tamperLastCharacter } from "../helpers/factories.ts";
import type { AvailableScope } from "../../src/modules/organizations/access-tokens.schemas.ts";

const ALL_SCOPES: AvailableScope[] = [
  "organizations:read",
  "products:read",
  "products:write",
  "benefits:read",
  "orders:read",
  "orders:write",
  "refunds:read",
  "refunds:write",
  "payments:read",
  "metrics:read",
  "webhooks:read",
  "webhooks:write",
  "checkouts:read",
  "checkouts:write",
  "customers:read",
];

/** The seller's dashboard in headless Chromium, against the real app and database. */
describe.skipIf(!chromiumAvailable)("dashboard in a browser", { timeout: 180_000 }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let origin: string;
  let orgId: string;
  let token: string;

  beforeAll(async () => {
    ({ ctx, origin } = await startListeningContext());
    orgId = (await createOrganization(ctx.deps, `Tea & <Biscuits> ${Date.now()}`)).id;
    token = await createOrganizationToken(ctx.deps, orgId, ALL_SCOPES);
    browser = await launchBrowser();
    await mkdir("test-results", { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  /** A browser context signed in with the token pasted into the form. */
  async function signedIn(with_ = token, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/`);
    await page.getByLabel("Access token").fill(with_);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    return { context, page };
  }

  /** The page at both widths: no serious or critical axe violation, a full-page screenshot each. */
  async function checkWidths(page: Page, name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await expectAccessible(page);
      await page.screenshot({ path: `test-results/dashboard-${name}-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it("refuses a wrong token with a message, then signs in with the right one: the cookie is HttpOnly and Strict", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/`);
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    await checkWidths(page, "sign-in");
    await page.getByLabel("Access token").fill(tamperLastCharacter(token));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "This token is not valid" }).waitFor();
    await page.getByLabel("Access token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(await page.evaluate("document.cookie")).toBe("");
    expect(await page.evaluate("JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")).toBe("{}{}");
    expect((await context.cookies())[0]).toMatchObject({
      name: "dashboard_session",
      httpOnly: true,
      sameSite: "Strict",
      path: "/dashboard",
    });
    // The organization's name, with its markup characters, is text.
    await page.getByText(/Tea & <Biscuits>/).waitFor();
    await context.close();
  });

  it("shows the overview's figures and charts with their numbers in tables", async () => {
    const { context, page } = await signedIn();
    await page.locator("[data-metric=revenue] .figure-value").waitFor();
    expect(await page.locator(".chart canvas").count()).toBe(4);
    await page.getByText("Revenue: the numbers").click();
    expect(await page.getByRole("table", { name: "Revenue" }).getByRole("row").count()).toBe(31);
    await checkWidths(page, "overview");
    await context.close();
  });
});
