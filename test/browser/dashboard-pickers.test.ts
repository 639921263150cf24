import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AvailableScopes } from "../../src/modules/organizations/access-tokens.schemas.ts";
import { launchBrowser, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { checkDashboardWidths, dashboardPageReady, signInToDashboard, callApi } from "../helpers/dashboard-browser.ts";
import type { TestContext } from "../helpers/context.ts";
import {
  createCustomer,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "../helpers/factories.ts";

const HOSTILE = "<img src=x onerror=alert(1)>";
/** Past the 100 rows the pickers used to read. */
const PRODUCTS = 150;
const CUSTOM_FIELDS = 105;
/** Past the dashboard's 20 rows a page. */
const ORDERS = 25;
const SUBSCRIPTIONS = 21;

const numbered = (n: number) => String(n).padStart(3, "0");
const productName = (n: number) => (n === PRODUCTS ? `Item ${numbered(n)} ${HOSTILE}` : `Item ${numbered(n)}`);

/** Runs `make` for 1…count, `batch` at a time. */
async function inBatches<T>(count: number, batch: number, make: (n: number) => Promise<T>): Promise<T[]> {
  const made: T[] = [];
  for (let start = 1; start <= count; start += batch)
    made.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - start + 1) }, (_, i) => make(start + i)))));
  return made;
}

/** The dashboard's search pickers and a customer's paged lists, on an organization past a hundred products, in headless Chromium. */
describe.skipIf(!chromiumAvailable)("dashboard pickers and a customer's pages in a browser", { timeout: 300_000 }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let origin: string;
  let token: string;
  let lastProductId: string;
  let customerId: string;
  let dialogs = 0;

  const api = <T>(method: "GET" | "POST", url: string, payload?: object): Promise<T> => callApi<T>(ctx, token, method, url, payload);

  beforeAll(async () => {
    ({ ctx, origin } = await startListeningContext());
    const orgId = (await createOrganization(ctx.deps, `Pickers shop ${Date.now()}`)).id;
    token = await createOrganizationToken(ctx.deps, orgId, [...AvailableScopes]);
    // Through the repositories, twenty-five at a time: the API's validation is not what is tested here.
    const products = await inBatches(PRODUCTS, 25, (n) =>
      createProduct(ctx.deps, orgId, {
        product: { name: productName(n) },
        ...(n === 1 ? { benefits: [{ type: "custom", description: "Priority support", properties: { note: null } }] } : {}),
      }),
    );
    const last = products.at(-1)!.product;
    lastProductId = last.id;
    await inBatches(CUSTOM_FIELDS, 25, (n) =>
      api("POST", "/v1/custom-fields/", { type: "text", slug: `question-${numbered(n)}`, name: `Question ${numbered(n)}`, properties: {} }),
    );
    const customer = await createCustomer(ctx.deps, orgId, { email: "many@example.com", name: "Many Orders" });
    customerId = customer.id;
    await inBatches(ORDERS, 25, () => createOrder(ctx.deps, orgId, { customer, product: last }));
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: "Monthly plan", recurring_interval: "month", recurring_interval_count: 1 },
    });
    await inBatches(SUBSCRIPTIONS, 25, () => createSubscription(ctx.deps, orgId, { customer, product: plan }));
    browser = await launchBrowser();
    await mkdir("test-results", { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  const signedIn = () =>
    signInToDashboard(browser, origin, token, {
      onDialog: () => {
        dialogs += 1;
      },
    });

  async function visit(page: Page, path: string, heading: string | RegExp): Promise<void> {
    await page.goto(`${origin}/dashboard${path}`);
    await dashboardPageReady(page, heading);
  }

  it("Checkout links: the 150th product is found by typing, picked by keyboard, and sold by the new link", async () => {
    const { context, page } = await signedIn();
    await visit(page, "/checkout-links", "Checkout links");
    const box = page.getByRole("combobox", { name: /^Product/ });
    // Reached by Tab from the page's heading, as a keyboard user would.
    let reached = false;
    for (let step = 0; step < 40 && !reached; step += 1) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate("document.activeElement?.getAttribute('role') === 'combobox'");
    }
    expect(reached).toBe(true);
    // Typed at a typist's pace, each word is one search: the API is asked after a pause, not per letter.
    const searches: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/dashboard/api/products/" && url.searchParams.has("query")) searches.push(url.searchParams.get("query")!);
    });
    await page.keyboard.type("Item");
    await page.getByText(`${PRODUCTS} products match “Item”; the first 20 are listed. Type more to narrow.`).waitFor();
    const matches = page.getByRole("listbox", { name: "Matching products" });
    expect(await matches.getByRole("option").count()).toBe(20);
    expect(await box.getAttribute("aria-expanded")).toBe("true");
    await checkDashboardWidths(page, "picker-open");

    await page.keyboard.type(" 150");
    await page.getByText(`1 product matches “Item 150”.`).waitFor();
    // Eight keystrokes in two bursts: two searches (a third only if the machine paused mid-word).
    expect(searches.at(-1)).toBe("Item 150");
    expect(searches.length).toBeLessThanOrEqual(3);
    await page.keyboard.press("ArrowDown");
    expect(await box.getAttribute("aria-activedescendant")).toBe(await matches.getByRole("option").first().getAttribute("id"));
    await page.keyboard.press("Enter");
    const chosen = page.getByRole("list", { name: "Chosen products" });
    await chosen.getByText(productName(PRODUCTS)).waitFor();
    expect(await box.getAttribute("aria-expanded")).toBe("false");
    // Enter picked; it did not submit the form.
    expect(await page.getByText("Link created.").count()).toBe(0);
    // A search that finds nothing keeps the choice.
    await page.keyboard.type("zzz");
    await page.getByText("No product matches “zzz”.").waitFor();
    await chosen.getByText(productName(PRODUCTS)).waitFor();

    await page.getByLabel(/^Label/).fill("Last product");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.getByText("Link created. Copy it and share it.").waitFor();
    const [created] = (await api<{ items: { label: string; products: { id: string }[] }[] }>("GET", "/v1/checkout-links/")).items;
    expect(created).toMatchObject({ label: "Last product", products: [{ id: lastProductId }] });
    expect(await page.locator("main img").count()).toBe(0);
    expect(dialogs).toBe(0);
    await checkDashboardWidths(page, "picker-chosen");
    await context.close();
  });

  it("Orders: filtered by a product found by search; the address keeps it, and removing it lists every product's orders", async () => {
    const { context, page } = await signedIn();
    await visit(page, "/orders", "Orders");
    await page.getByRole("combobox", { name: /^Product/ }).fill("150");
    await page.getByRole("option", { name: productName(PRODUCTS) }).click();
    await page.getByRole("table", { name: `Orders, page 1 of 2 (${ORDERS} in all)` }).waitFor();
    expect(new URL(page.url()).searchParams.get("product_id")).toBe(lastProductId);
    // Opened anew, the filter names its product.
    await page.reload();
    await dashboardPageReady(page, "Orders");
    await page.getByRole("list", { name: "Chosen products" }).getByText(productName(PRODUCTS)).waitFor();
    await checkDashboardWidths(page, "orders-product-filter");
    await page.getByRole("button", { name: `Remove ${productName(PRODUCTS)}` }).click();
    await page.getByRole("table", { name: `Orders, page 1 of 2 (${ORDERS} in all)` }).waitFor();
    expect(new URL(page.url()).searchParams.has("product_id")).toBe(false);
    expect(await page.getByRole("list", { name: "Chosen products" }).isHidden()).toBe(true);
    await context.close();
  });

  it("Products: custom fields past the first hundred and a benefit are attached by search, and kept across searches", async () => {
    const { context, page } = await signedIn();
    await visit(page, `/products/${lastProductId}`, /^Item 150/);
    const fields = page.getByRole("combobox", { name: /^Ask for a custom field/ });
    await fields.fill("Question 105");
    await page.getByRole("option", { name: "“Question 105” (text)" }).click();
    await fields.fill("question-003");
    await page.getByRole("option", { name: "“Question 003” (text)" }).click();
    // Both are chosen, in the order picked.
    const chosen = page.getByRole("list", { name: "Chosen custom fields" });
    expect(await chosen.getByRole("listitem").allTextContents()).toEqual([
      expect.stringContaining("Question 105"),
      expect.stringContaining("Question 003"),
    ]);
    // Escape closes the matches; the choices stay.
    await page.keyboard.press("Escape");
    await page.getByLabel("Require “Question 105”").check();
    await page.getByRole("button", { name: "Save custom fields" }).click();
    await page.getByText("The custom fields are saved.").waitFor();
    const product = await api<{
      attached_custom_fields: { custom_field: { name: string }; required: boolean }[];
      benefits: { description: string }[];
    }>("GET", `/v1/products/${lastProductId}`);
    expect(product.attached_custom_fields.map((a) => [a.custom_field.name, a.required])).toEqual([
      ["Question 105", true],
      ["Question 003", false],
    ]);

    const benefits = page.getByRole("combobox", { name: /^Grant a benefit/ });
    await benefits.fill("priority");
    await page.getByRole("option", { name: "Priority support" }).click();
    await page.getByRole("button", { name: "Save benefits" }).click();
    await page.getByText("The benefits are saved.").waitFor();
    expect((await api<{ benefits: { description: string }[] }>("GET", `/v1/products/${lastProductId}`)).benefits).toEqual([
      expect.objectContaining({ description: "Priority support" }),
    ]);

    await page.reload();
    await dashboardPageReady(page, /^Item 150/);
    expect(await page.getByLabel("Require “Question 105”").isChecked()).toBe(true);
    await page.getByRole("list", { name: "Chosen benefits" }).getByText("Priority support").waitFor();
    await fields.fill("Question");
    await page.getByText(`${CUSTOM_FIELDS} custom fields match “Question”; the first 20 are listed. Type more to narrow.`).waitFor();
    await checkDashboardWidths(page, "product-pickers");
    expect(await page.locator("main img").count()).toBe(0);
    expect(dialogs).toBe(0);
    await context.close();
  });

  it("A customer's page: their orders and subscriptions a page at a time, each page in the address", async () => {
    const { context, page } = await signedIn();
    await visit(page, `/customers/${customerId}`, "Many Orders");
    const orders = (n: number) => page.getByRole("table", { name: `Orders, page ${n} of 2 (${ORDERS} in all)` });
    const subscriptions = (n: number) => page.getByRole("table", { name: `Subscriptions, page ${n} of 2 (${SUBSCRIPTIONS} in all)` });
    expect(await orders(1).getByRole("row").count()).toBe(21);
    await subscriptions(1).waitFor();
    await checkDashboardWidths(page, "customer-paged");

    await page.getByRole("navigation", { name: "Pages of orders" }).getByRole("link", { name: "Next page" }).click();
    await orders(2).waitFor();
    expect(await orders(2).getByRole("row").count()).toBe(1 + ORDERS - 20);
    expect(new URL(page.url()).search).toBe("?orders_page=2");
    // The other list stays on its page.
    await subscriptions(1).waitFor();
    await page.getByRole("navigation", { name: "Pages of subscriptions" }).getByRole("link", { name: "Last page" }).click();
    await subscriptions(2).waitFor();
    expect(await subscriptions(2).getByRole("row").count()).toBe(1 + SUBSCRIPTIONS - 20);
    await orders(2).waitFor();
    expect(new URL(page.url()).searchParams.get("subscriptions_page")).toBe("2");
    await page.goBack();
    await subscriptions(1).waitFor();
    await orders(2).waitFor();
    await checkDashboardWidths(page, "customer-page-2");
    await context.close();
  });
});
