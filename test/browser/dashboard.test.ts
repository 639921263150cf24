import { mkdir } from "node:fs/promises";
import pino from "pino";
import { startWorker, type JobWorker } from "../../src/jobs/runner.ts";
import { taskList } from "../../src/tasks.ts";
import { createWebhookEndpoint, startReceiver, waitFor, type Receiver } from "../helpers/webhooks.ts";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, launchBrowser, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { checkDashboardWidths, signInToDashboard } from "../helpers/dashboard-browser.ts";
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
  let hook: Receiver;
  let worker: JobWorker;

  beforeAll(async () => {
    ({ ctx, origin } = await startListeningContext());
    orgId = (await createOrganization(ctx.deps, `Tea & <Biscuits> ${Date.now()}`)).id;
    token = await createOrganizationToken(ctx.deps, orgId, ALL_SCOPES);
    hook = await startReceiver();
    await createWebhookEndpoint(ctx.deps, orgId, { url: hook.url, name: "Shop <hooks>", events: ["order.paid"] });
    worker = await startWorker({
      pool: ctx.database.pool,
      tasks: taskList(ctx.deps, ctx.services),
      concurrency: 2,
      logger: pino({ level: "silent" }),
    });
    browser = await launchBrowser();
    await mkdir("test-results", { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await hook?.close();
    await ctx?.close();
  });

  const signedIn = (with_ = token, viewport = { width: 1280, height: 900 }) => signInToDashboard(browser, origin, with_, { viewport });

  it("refuses a wrong token with a message, then signs in with the right one: the cookie is HttpOnly and Strict", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/`);
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    await checkDashboardWidths(page, "sign-in");
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
    await checkDashboardWidths(page, "overview");
    await context.close();
  });

  const HOSTILE = "<img src=x onerror=alert(1)>";

  it("creates a product, sees its sale in Orders and on the Overview, refunds it, and redelivers its webhook", async () => {
    const { context, page } = await signedIn();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.locator("[data-metric=revenue] .figure-value").waitFor();
    expect(await page.locator("[data-metric=revenue] .figure-value").textContent()).toBe("$0.00");

    // Products: create one named with markup, priced at $25.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Products" }).click();
    await page.getByRole("heading", { name: "Products" }).waitFor();
    await checkDashboardWidths(page, "products");
    await page.getByRole("link", { name: "New product" }).click();
    await page.getByRole("heading", { name: "New product" }).waitFor();
    await checkDashboardWidths(page, "product-new");
    await page.getByLabel("Name").fill(HOSTILE);
    await page.getByLabel(/^Amount/).fill("25");
    await page.getByRole("button", { name: "Create product" }).click();
    await page.getByRole("heading", { name: HOSTILE }).waitFor();
    await page.getByText("The product is created.").waitFor();
    expect(await page.locator("img").count()).toBe(0);
    await checkDashboardWidths(page, "product");
    const productId = new URL(page.url()).pathname.split("/").at(-1)!;

    // Bought through the hosted checkout page.
    const checkout = await ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload: { products: [productId] } });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const buyer = await context.newPage();
    await buyer.goto(checkout.json<{ url: string }>().url);
    await buyer.getByLabel(/^Email/).fill("ada@example.com");
    await buyer.getByLabel(/^Name/).fill("Ada Lovelace");
    await buyer.getByLabel(/^Country/).selectOption("FR");
    await buyer.getByLabel(/^Card number/).fill("4242 4242 4242 4242");
    await buyer.getByLabel(/^Expiry/).fill("12 / 34");
    await buyer.getByLabel(/^Security code/).fill("123");
    await buyer.getByRole("button", { name: /^Pay / }).click();
    await buyer.getByRole("heading", { name: "Thank you!" }).waitFor();
    await buyer.close();

    // Orders: the sale, and its page.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Orders" }).click();
    const row = page.getByRole("row").filter({ hasText: HOSTILE });
    await row.waitFor();
    expect(await row.getByRole("cell").allTextContents()).toEqual([expect.any(String), "ada@example.com", HOSTILE, "Paid", "$25.00"]);
    await page.getByLabel("Status").selectOption("refunded");
    await page.getByText("No orders match.").waitFor();
    await page.getByLabel("Status").selectOption("paid");
    await row.waitFor();
    await checkDashboardWidths(page, "orders");

    // Overview: the revenue of the period now holds the sale.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Overview" }).click();
    await expect.poll(async () => page.locator("[data-metric=revenue] .figure-value").textContent()).toBe("$25.00");
    expect(await page.locator("[data-metric=orders] .figure-value").textContent()).toBe("1");
    expect(await page.locator("[data-metric=revenue] .figure-change").textContent()).toBe("Up from none in the previous period");

    // The order: its lines, payment, documents; refunded in full.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Orders" }).click();
    await row.getByRole("link").click();
    await page.getByRole("heading", { name: `Order of ${HOSTILE}` }).waitFor();
    await page.getByRole("table", { name: "Payments" }).getByRole("cell", { name: "Succeeded" }).waitFor();
    await checkDashboardWidths(page, "order");
    await page.getByRole("button", { name: "Get receipt" }).click();
    await page.getByRole("link", { name: "Open receipt (PDF)" }).or(page.getByText("The receipt is being prepared")).first().waitFor();
    expect(await page.getByLabel(/^Amount before tax/).inputValue()).toBe("25");
    await page.getByLabel("Reason").selectOption("customer_request");
    await page.getByRole("button", { name: "Refund", exact: true }).click();
    await page.getByRole("table", { name: "Refunds" }).getByRole("cell", { name: "$25.00" }).waitFor();
    await page.locator(".dashboard-facts").getByText("Refunded", { exact: true }).waitFor();
    await checkDashboardWidths(page, "order-refunded");

    // Webhooks: the order.paid delivery with its code, latency and body; sent again on request.
    await waitFor(() => hook.received.length >= 1, 20_000);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("link", { name: hook.url }).click();
    await page.getByRole("heading", { name: "Shop <hooks>" }).waitFor();
    const delivery = page.getByRole("table", { name: "Deliveries" }).getByRole("row").filter({ hasText: "order.paid" }).first();
    expect(await delivery.getByRole("cell").nth(2).textContent()).toBe("200 (succeeded)");
    expect(await delivery.getByRole("cell").nth(3).textContent()).toMatch(/^\d+ ms$/);
    await checkDashboardWidths(page, "webhook-endpoint");
    const before = hook.received.length;
    await delivery.getByRole("button", { name: /^Redeliver order\.paid/ }).click();
    await page.getByText("The order.paid event is scheduled to be sent again.").waitFor();
    await waitFor(() => hook.received.length > before, 20_000);

    // Archived: no longer listed among the active products, listed among the archived ones.
    await page.goto(`${origin}/dashboard/products/${productId}`);
    await page.getByRole("button", { name: "Archive product" }).click();
    await page.getByRole("button", { name: "Unarchive product" }).waitFor();
    await page.getByText(/^Archived · /).waitFor();
    await page.getByRole("link", { name: "All products" }).click();
    await page.getByText("No products yet. Create one to sell it.").waitFor();
    await page.getByLabel("Show").selectOption("true");
    await page.getByRole("table", { name: "Archived products" }).getByRole("link", { name: HOSTILE }).waitFor();
    expect(dialogs).toEqual([]);
    await context.close();
  });

  it("disables the refund button for a token without refunds:write, saying why; a forged CSRF token writes nothing", async () => {
    const readOnly = await createOrganizationToken(ctx.deps, orgId, [
      "organizations:read",
      "orders:read",
      "payments:read",
      "refunds:read",
      "metrics:read",
      "products:read",
    ]);
    const { context, page } = await signedIn(readOnly);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Orders" }).click();
    await page.getByRole("row").filter({ hasText: HOSTILE }).getByRole("link").click();
    const refund = page.getByRole("button", { name: "Refund", exact: true });
    await refund.waitFor();
    expect(await refund.isDisabled()).toBe(true);
    await page.getByText("Your token lacks the refunds:write scope. Refunds need it.").waitFor();
    await expectAccessible(page);
    const forged = await page.evaluate(async () => {
      const response = await fetch("/dashboard/api/products/", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": "forged" },
        body: JSON.stringify({ name: "Forged", prices: [{ amount_type: "free" }] }),
      });
      return { status: response.status, body: await response.json() };
    });
    expect(forged).toEqual({ status: 403, body: { error: "NotPermitted", detail: expect.stringContaining("CSRF") } });
    const products = await ctx.request({ method: "GET", url: "/v1/products/?query=Forged", token });
    expect(products.json().items).toEqual([]);
    await context.close();
  });
});
