import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type JobWorker } from "../../src/jobs/runner.ts";
import type { CustomerRow } from "../../src/modules/customers/customers.table.ts";
import { taskList } from "../../src/tasks.ts";
import { expectAccessible, launchBrowser, screenshotAll, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import type { TestContext } from "../helpers/context.ts";
import {
  createCustomer,
  createLicenseKey,
  createOrder,
  createOrganization,
  createProduct,
  createOrganizationToken,
  createSubscription,
  registerForTax,
} from "../helpers/factories.ts";
import { payCheckout } from "../modules/emails/email-helpers.ts";
import { productWithFiles } from "../modules/files/downloadable-helpers.ts";
import { uploadFile } from "../modules/files/file-uploads.ts";
import { addActivation, openPortalSession } from "../modules/portal-page/portal-page-helpers.ts";

/** The customer portal in headless Chromium, against the real app, database and worker (invoices are rendered by jobs). */
describe.skipIf(!chromiumAvailable)("customer portal in a browser", { timeout: 120_000 }, () => {
  let ctx: TestContext;
  let dataDir: string;
  let browser: Browser;
  let worker: JobWorker;
  let origin: string;
  let orgId: string;
  let customer: CustomerRow;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-portal-"));
    ({ ctx, origin } = await startListeningContext({ DATA_DIR: dataDir }));
    orgId = (await createOrganization(ctx.deps, `Tea & <Biscuits> ${Date.now()}`)).id;
    customer = await createCustomer(ctx.deps, orgId, { email: "ada@example.com", name: "Ada Lovelace" });
    worker = await startWorker({
      pool: ctx.database.pool,
      tasks: taskList(ctx.deps, ctx.services),
      concurrency: 2,
      logger: pino({ level: "silent" }),
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await ctx?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** A browser context signed in through the session's link, as the customer arrives from the seller. */
  async function signedIn(
    viewport = { width: 1280, height: 900 },
    customerId = customer.id,
  ): Promise<{ context: BrowserContext; page: Page; portal: string }> {
    const link = await openPortalSession(ctx, orgId, customerId);
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(link.url);
    const portal = `${origin}${new URL(link.url).pathname}`;
    expect(page.url()).toBe(portal);
    await page.waitForSelector("html[data-ready]");
    return { context, page, portal };
  }

  it("shows orders, subscriptions, keys and billing details, readable at 1280 and 360 in both themes", async () => {
    const product = (await createProduct(ctx.deps, orgId, { product: { name: "Loose-leaf box" } })).product;
    await createOrder(ctx.deps, orgId, { customer, product, amounts: { subtotal: 2500 } });
    const key = await createLicenseKey(ctx.deps, orgId, customer.id);
    await addActivation(ctx, orgId, key.id, "Kitchen tablet");
    await createSubscription(ctx.deps, orgId, { customer });
    const { context, page, portal } = await signedIn();
    // The token is in the cookie, out of reach of the page's script, and out of the address.
    expect(await page.evaluate("document.cookie")).toBe("");
    expect((await context.cookies())[0]).toMatchObject({ name: "portal_session", httpOnly: true, sameSite: "Lax" });
    await page.getByRole("heading", { name: "Loose-leaf box" }).waitFor();
    await expect.poll(() => page.getByText("$25.00").count()).toBeGreaterThan(0);
    await screenshotAll(page, portal, "portal");
    await context.close();
  });

  it("generates an invoice after asking for the billing details it needs, and opens it", async () => {
    const product = (await createProduct(ctx.deps, orgId, { product: { name: "Invoice me" } })).product;
    await createOrder(ctx.deps, orgId, { customer, product, billing: { name: null, address: null } });
    const { context, page, portal } = await signedIn({ width: 360, height: 800 });
    await page
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { name: "Invoice me" }) })
      .getByRole("link", { name: "Generate invoice" })
      .click();
    await page.getByRole("heading", { name: "Invoice for Invoice me" }).waitFor();
    await expectAccessible(page);
    await screenshotAll(page, page.url(), "portal-invoice");
    // Nothing entered: the page says what is missing, next to the fields.
    await page.getByRole("button", { name: "Generate invoice" }).click();
    await page.locator("#f-country[aria-invalid=true]").waitFor();
    await expectAccessible(page);

    expect(await page.getByLabel("Billing name").inputValue()).toBe("Ada Lovelace");
    await page.getByLabel("Billing name").fill("Ada Lovelace Ltd");
    await page.getByLabel("Country").selectOption("FR");
    await page.getByLabel("City (optional)").fill("Paris");
    const download = page.waitForEvent("download", { timeout: 60_000 });
    await page.getByRole("button", { name: "Generate invoice" }).click();
    await page.getByRole("heading", { name: "Your invoice is being prepared" }).waitFor();
    await expectAccessible(page);
    // The page asks again until the worker has rendered it, then the PDF downloads.
    const file = await (await download).path();
    expect((await readFile(file)).subarray(0, 5).toString()).toBe("%PDF-");
    expect((await download).suggestedFilename()).toMatch(/^Invoice-.+\.pdf$/);

    // Back on the portal, the order's link now opens the invoice itself.
    await page.goto(portal);
    await page
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { name: "Invoice me" }) })
      .getByRole("link", { name: "Invoice", exact: true })
      .waitFor();
    await context.close();
  });

  it("lists the files the customer bought under Downloads, each name (escaped) a link that downloads its bytes", async () => {
    await registerForTax(ctx.deps, orgId);
    const token = await createOrganizationToken(ctx.deps, orgId, ["files:write", "benefits:write", "products:write", "checkouts:write"]);
    const bytes = randomBytes(3_000);
    const name = `Tea <notes> & "recipes".pdf`;
    const file = await uploadFile(ctx, token, bytes, { partSize: 3_000, name });
    const { productId } = await productWithFiles(ctx, token, [file.id]);
    const { order } = await payCheckout(ctx, token, productId, { email: "files-buyer@example.com" });
    const { context, page } = await signedIn(undefined, order.customer_id);
    const downloads = page.getByRole("region", { name: "Downloads" });
    const link = downloads.getByRole("link", { name });
    await link.waitFor();
    // The name is text, not markup: no element was made of it.
    expect(await downloads.locator("notes").count()).toBe(0);
    await downloads.getByText("3.0 kB").waitFor();
    const href = await link.getAttribute("href");
    expect(href).toMatch(new RegExp(`^${origin}/v1/customer-portal/downloadables/`));
    const fetched = await page.request.get(href!);
    expect(fetched.status()).toBe(200);
    expect(Buffer.from(await fetched.body()).equals(bytes)).toBe(true);
    await expectAccessible(page);
    await context.close();
  });

  it("deactivates a license key activation", async () => {
    const key = await createLicenseKey(ctx.deps, orgId, customer.id);
    const activation = await addActivation(ctx, orgId, key.id, "Old laptop");
    const { context, page } = await signedIn();
    await page.getByRole("listitem").filter({ hasText: "Old laptop" }).getByRole("button", { name: "Deactivate" }).click();
    await page.getByText("The activation is removed.").waitFor();
    expect(await page.getByText("Old laptop").count()).toBe(0);
    await expectAccessible(page);
    const row = await ctx.deps.db
      .selectFrom("license_key_activations")
      .select("deleted_at")
      .where("id", "=", activation)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    await context.close();
  });

  it("cancels a subscription, replaces the payment method with a test card, and resumes it", async () => {
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: "Tea club", recurring_interval: "month", recurring_interval_count: 1 },
    });
    const subscription = await createSubscription(ctx.deps, orgId, { customer, product: plan });
    const { context, page } = await signedIn({ width: 360, height: 800 });
    const item = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Tea club" }) });
    await item.getByRole("button", { name: "Cancel subscription" }).click();
    await page.getByText("Your subscription is cancelled.").waitFor();
    await expectAccessible(page);
    const row = () => ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscription.id).executeTakeFirstOrThrow();
    expect((await row()).cancel_at_period_end).toBe(true);

    // The checkout's card form, in the portal: a wrong number is refused in the form, a test card saved.
    await page.getByLabel("Card number").fill("1234 5678 9012 3456");
    await page.getByLabel("Expiry (MM / YY)").fill("12 / 34");
    await page.getByLabel("Security code").fill("123");
    await page.getByRole("button", { name: "Save payment method" }).click();
    await page.locator("input[name=card_number][aria-invalid=true]").waitFor();
    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByRole("button", { name: "Save payment method" }).click();
    await page.getByText("Your payment method is saved.").waitFor();
    await page.getByText(/visa ending in 4242/i).waitFor();

    await item.getByRole("button", { name: "Resume subscription" }).click();
    await page.getByText("Your subscription will renew as before.").waitFor();
    expect((await row()).cancel_at_period_end).toBe(false);
    await expectAccessible(page);
    await context.close();
  });
});
