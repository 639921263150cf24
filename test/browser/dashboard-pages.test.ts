import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AvailableScopes, type AvailableScope } from "../../src/modules/organizations/access-tokens.schemas.ts";
import { launchBrowser, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { checkDashboardWidths, dashboardPageReady, signInToDashboard, callApi } from "../helpers/dashboard-browser.ts";
import type { TestContext } from "../helpers/context.ts";
import {
  createCustomer,
  createLicenseKey,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "../helpers/factories.ts";

const HOSTILE = "<img src=x onerror=alert(1)>";
const READ_ONLY: AvailableScope[] = ["organizations:read", "customers:read", "subscriptions:read", "orders:read", "license_keys:read"];

/** The seller's pages of the dashboard in headless Chromium, on data seeded through the API. */
describe.skipIf(!chromiumAvailable)("dashboard pages in a browser", { timeout: 240_000 }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let origin: string;
  let orgId: string;
  let orgName: string;
  let token: string;
  let readOnly: string;
  let customerId: string;
  let subscriptionId: string;
  let meterId: string;
  let emailId: string;
  let dialogs = 0;

  const api = <T>(method: "GET" | "POST" | "PATCH", url: string, payload?: object, as = token): Promise<T> =>
    callApi<T>(ctx, as, method, url, payload);

  beforeAll(async () => {
    ({ ctx, origin } = await startListeningContext());
    orgName = `Dashboard pages shop ${Date.now()}`;
    orgId = (await createOrganization(ctx.deps, orgName)).id;
    token = await createOrganizationToken(ctx.deps, orgId, [...AvailableScopes]);
    readOnly = await createOrganizationToken(ctx.deps, orgId, READ_ONLY);
    customerId = (await api<{ id: string }>("POST", "/v1/customers/", { email: "hostile@example.com", name: HOSTILE })).id;
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: `Plan ${HOSTILE}`, recurring_interval: "month", recurring_interval_count: 1 },
    });
    subscriptionId = (await createSubscription(ctx.deps, orgId, { customer, product: plan })).id;
    // More of the customer's keys than a page holds, and a newer key of another customer's.
    for (let i = 0; i < 21; i += 1) await createLicenseKey(ctx.deps, orgId, customerId);
    await createLicenseKey(ctx.deps, orgId, (await createCustomer(ctx.deps, orgId)).id);
    meterId = (
      await api<{ id: string }>("POST", "/v1/meters/", {
        name: "API calls",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
        aggregation: { func: "count" },
      })
    ).id;
    await api("POST", "/v1/events/ingest", { events: [1, 2, 3].map(() => ({ name: "api_call", customer_id: customerId })) });
    emailId = (
      await ctx.deps.db
        .insertInto("emails")
        .values({
          created_at: ctx.clock.now(),
          organization_id: orgId,
          dedupe_key: `dashboard-pages:${orgId}`,
          template: "order_paid",
          locale: null,
          sender_name: orgName,
          sender_address: "shop@example.com",
          recipient: "hostile@example.com",
          reply_to: null,
          list_unsubscribe: null,
          subject: `Receipt for ${HOSTILE}`,
          html: `<p>Thanks for your order.</p><img src=x onerror="parent.document.title='pwned'"><script>parent.document.title='pwned'</script>`,
          text: "Thanks for your order.\nTotal: $25.00",
          message_id: `<${orgId}@example.com>`,
          status: "kept",
          last_error: null,
          sent_at: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
    browser = await launchBrowser();
    await mkdir("test-results", { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  const signedIn = (with_ = token) =>
    signInToDashboard(browser, origin, with_, {
      organizationName: orgName,
      clipboard: true,
      // A script the page must never run (an injected `onerror`) would open a dialog.
      onDialog: () => {
        dialogs += 1;
      },
    });

  /** Opens a page from the navigation, as a seller would. */
  async function open(page: Page, nav: string, heading: string | RegExp): Promise<void> {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: nav, exact: true }).click();
    await dashboardPageReady(page, heading);
  }

  /** The hostile name is on the page as its characters, and no element came of it. */
  async function expectHostileAsText(page: Page): Promise<void> {
    await page.getByText(HOSTILE).first().waitFor();
    expect(await page.locator("main img").count()).toBe(0);
    expect(dialogs).toBe(0);
  }

  it("Customers: lists and searches, shows a customer's state, subscriptions, orders and license keys (paged), and creates a portal link to copy", async () => {
    const { context, page } = await signedIn();
    await open(page, "Customers", "Customers");
    await expectHostileAsText(page);
    await checkDashboardWidths(page, "customers");
    await page.getByLabel(/Search by name or email/).fill("nobody-matches");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText("No customer matches this search.").waitFor();
    await page.getByLabel(/Search by name or email/).fill("hostile@");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: HOSTILE }).click();
    await page.getByRole("heading", { level: 1, name: HOSTILE }).waitFor();
    await page.getByRole("table", { name: "Active subscriptions" }).getByRole("link", { name: "active" }).waitFor();
    await page
      .getByRole("table", { name: "Subscriptions" })
      .getByRole("link", { name: `Plan ${HOSTILE}` })
      .waitFor();
    // The customer's license keys only (the API's `customer_id` filter), a page at a time.
    const keys = page.getByRole("table", { name: "License keys, page 1 of 2 (21 in all)" });
    await keys.waitFor();
    expect(await keys.locator("tbody tr").count()).toBe(20);
    await expectHostileAsText(page);
    await checkDashboardWidths(page, "customer");
    await page.getByRole("navigation", { name: "Pages of license keys" }).getByRole("link", { name: "Next page" }).click();
    const second = page.getByRole("table", { name: "License keys, page 2 of 2 (21 in all)" });
    await second.waitFor();
    expect(await second.locator("tbody tr").count()).toBe(1);
    expect(new URL(page.url()).searchParams.get("license_keys_page")).toBe("2");
    await page.getByRole("button", { name: "Create a portal link" }).click();
    const link = page.getByRole("textbox", { name: "Portal link", exact: true });
    await link.waitFor();
    expect(await link.inputValue()).toMatch(new RegExp(`^${origin}/.+/portal`));
    await context.close();
  });

  it("Subscriptions: read-only tokens see the actions disabled with the reason; cancel at period end, then uncancel", async () => {
    const reader = await signedIn(readOnly);
    await reader.page.goto(`${origin}/dashboard/subscriptions/${subscriptionId}`);
    await reader.page.getByRole("button", { name: "Cancel at period end" }).waitFor();
    expect(await reader.page.getByRole("button", { name: "Cancel at period end" }).isDisabled()).toBe(true);
    expect(await reader.page.getByRole("button", { name: "Revoke now" }).isDisabled()).toBe(true);
    await reader.page.getByText("Disabled: your token lacks the subscriptions:write scope.").waitFor();
    await reader.context.close();

    const { context, page } = await signedIn();
    await open(page, "Subscriptions", "Subscriptions");
    await expectHostileAsText(page);
    await checkDashboardWidths(page, "subscriptions");
    await page.getByRole("link", { name: HOSTILE }).click();
    await page.getByRole("button", { name: "Cancel at period end" }).click();
    await page.getByText("Canceled: it ends at the end of the period.").waitFor();
    expect((await api<{ cancel_at_period_end: boolean }>("GET", `/v1/subscriptions/${subscriptionId}`)).cancel_at_period_end).toBe(true);
    await checkDashboardWidths(page, "subscription");
    await page.getByRole("button", { name: "Keep renewing (uncancel)" }).click();
    await page.getByText("Uncanceled: it renews again.").waitFor();
    expect((await api<{ cancel_at_period_end: boolean }>("GET", `/v1/subscriptions/${subscriptionId}`)).cancel_at_period_end).toBe(false);
    await context.close();
  });

  it("Discounts: creates a percentage discount, listed at once and in the API", async () => {
    const { context, page } = await signedIn();
    await open(page, "Discounts", "Discounts");
    await page.getByLabel(/^Name/).fill(`Spring ${HOSTILE}`);
    await page.getByLabel(/^Code/).fill("SPRING25");
    await page.getByLabel(/^Value/).fill("25");
    await page.getByRole("button", { name: "Create discount" }).click();
    await page.getByText(`Discount “Spring ${HOSTILE}” created.`).waitFor();
    await page.getByRole("table", { name: "Discounts" }).getByRole("cell", { name: "SPRING25" }).waitFor();
    await expectHostileAsText(page);
    const listed = await api<{ items: { code: string; basis_points: number }[] }>("GET", "/v1/discounts/");
    expect(listed.items).toEqual([expect.objectContaining({ code: "SPRING25", basis_points: 2500 })]);
    await checkDashboardWidths(page, "discounts");
    await context.close();
  });

  it("Checkout links: creates a link for a product and copies its address", async () => {
    const { context, page } = await signedIn();
    await open(page, "Checkout links", "Checkout links");
    await page.getByRole("combobox", { name: /^Product/ }).fill("plan");
    await page.getByRole("option", { name: `Plan ${HOSTILE}` }).click();
    await page.getByLabel(/^Label/).fill("Newsletter");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.getByText("Link created. Copy it and share it.").waitFor();
    const url = await page.getByRole("textbox", { name: "New checkout link", exact: true }).inputValue();
    const [created] = (await api<{ items: { url: string; label: string }[] }>("GET", "/v1/checkout-links/")).items;
    expect(created).toMatchObject({ url, label: "Newsletter" });
    await page.getByRole("button", { name: "Copy new checkout link" }).click();
    await page.getByText("Copied.").first().waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(url);
    await page.getByRole("table", { name: "Checkout links" }).getByRole("cell", { name: "Newsletter", exact: true }).waitFor();
    await checkDashboardWidths(page, "checkout-links");
    await context.close();
  });

  it("Usage: lists the meters and charts one's quantities, with the numbers in a table", async () => {
    const { context, page } = await signedIn();
    await open(page, "Usage", "Usage");
    await checkDashboardWidths(page, "usage");
    await page.getByRole("link", { name: "API calls" }).click();
    await page.getByRole("heading", { level: 1, name: "API calls" }).waitFor();
    await page.locator(".chart canvas").waitFor();
    await page.getByText("API calls per day: the numbers").click();
    const rows = page.getByRole("table", { name: "API calls per day" }).getByRole("row");
    expect(await rows.count()).toBeGreaterThanOrEqual(30);
    await page.getByRole("term").filter({ hasText: "Total, last 30 days" }).waitFor();
    expect(await page.locator("dd").filter({ hasText: /^3$/ }).count()).toBe(1);
    await checkDashboardWidths(page, "meter");
    expect(meterId).toBeTruthy();
    await context.close();
  });

  it("Emails: lists the outbox and opens an email: its text, and its HTML in a frame sandboxed to nothing", async () => {
    const { context, page } = await signedIn();
    await open(page, "Emails", "Emails");
    await expectHostileAsText(page);
    await checkDashboardWidths(page, "emails");
    await page.getByRole("link", { name: `Receipt for ${HOSTILE}` }).click();
    await page.getByRole("heading", { level: 1, name: `Receipt for ${HOSTILE}` }).waitFor();
    expect(page.url()).toBe(`${origin}/dashboard/emails/${emailId}`);
    await page.getByText("Total: $25.00").waitFor();
    const frame = page.locator("iframe.email-html");
    expect(await frame.getAttribute("sandbox")).toBe("");
    await page.frameLocator("iframe.email-html").getByText("Thanks for your order.").waitFor();
    expect(await page.title()).not.toBe("pwned");
    expect(dialogs).toBe(0);
    await checkDashboardWidths(page, "email");
    await context.close();
  });

  it("Settings: an organization token cannot manage tokens; the owner creates one (shown once) and revokes it", async () => {
    const org = await signedIn();
    await open(org.page, "Settings", "Settings");
    await org.page.getByText("Only the owner's personal access token creates").waitFor();
    await org.context.close();

    const { context, page } = await signedIn(ctx.ownerToken);
    await open(page, "Settings", "Settings");
    expect(await page.getByLabel(/^Name/).inputValue()).toBe(orgName);
    await page.getByLabel("Each one-time sale").uncheck();
    await page.getByRole("button", { name: "Save notifications" }).click();
    await page.getByText("Notifications saved.").waitFor();
    expect(
      (await api<{ notification_settings: { new_order: boolean } }>("GET", `/v1/organizations/${orgId}`)).notification_settings.new_order,
    ).toBe(false);
    await page.getByLabel(/^Comment/).fill(`CI ${HOSTILE}`);
    await page.getByLabel("products:read", { exact: true }).check();
    await page.getByRole("button", { name: "Create token" }).click();
    await page.getByText("Token created. Copy it now: it is shown only once.").waitFor();
    const created = await page.getByRole("textbox", { name: "New token", exact: true }).inputValue();
    expect(created).toMatch(/^polar_oat_/);
    expect((await ctx.request({ method: "GET", url: "/v1/products/", token: created })).statusCode).toBe(200);
    const row = page
      .getByRole("table", { name: "Tokens" })
      .getByRole("row")
      .filter({ hasText: `CI ${HOSTILE}` });
    await row.getByRole("cell", { name: "products:read" }).waitFor();
    await expectHostileAsText(page);
    await checkDashboardWidths(page, "settings");
    await row.getByRole("button", { name: /Revoke/ }).click();
    await page.getByText(`Token “CI ${HOSTILE}” revoked.`).waitFor();
    await expect
      .poll(async () => (await ctx.request({ method: "GET", url: "/v1/products/", token: created })).statusCode, { timeout: 15_000 })
      .toBe(401);
    await context.close();
  });
});
