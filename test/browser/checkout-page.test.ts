import pino from "pino";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type JobWorker } from "../../src/jobs/runner.ts";
import { taskList } from "../../src/tasks.ts";
import { expectAccessible, launchBrowser, screenshotAll, startListeningContext, startStorefront } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import type { TestContext } from "../helpers/context.ts";
import { expireCheckoutNow } from "../modules/checkouts/checkout-helpers.ts";
import { createDiscount, createOrganization, createOrganizationToken, createProduct } from "../helpers/factories.ts";
import { createWebhookEndpoint, startReceiver, waitFor, type Receiver } from "../helpers/webhooks.ts";
import { LOGO_PNG_DATA_URL } from "../documents/fixtures.ts";
import { uploadFile } from "../modules/files/file-uploads.ts";

/** The hosted checkout page in headless Chromium, against the real app, database, worker and webhooks. */
describe.skipIf(!chromiumAvailable)("checkout page in a browser", { timeout: 120_000 }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let worker: JobWorker;
  let hook: Receiver;
  let storefront: Awaited<ReturnType<typeof startStorefront>>;
  let apiOrigin: string;
  let checkoutToken: string;
  let ordersToken: string;
  let productId: string;
  let giftProductId: string;
  let catalogToken: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ ctx, origin: apiOrigin } = await startListeningContext());
    const org = await createOrganization(ctx.deps, "Tea & <Biscuits>");
    organizationId = org.id;
    checkoutToken = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
    ordersToken = await createOrganizationToken(ctx.deps, org.id, ["orders:read"]);
    productId = (await createProduct(ctx.deps, org.id, { product: { name: "Loose-leaf box", description: "Twelve teas." } })).product.id;
    catalogToken = await createOrganizationToken(ctx.deps, org.id, ["custom_fields:write", "products:write", "checkout_links:write"]);
    const giftField = await ctx.request({
      method: "POST",
      url: "/v1/custom-fields/",
      token: catalogToken,
      payload: { type: "text", slug: "gift-message", name: "Gift message", properties: { form_label: "Gift message", max_length: 200 } },
    });
    expect(giftField.statusCode, giftField.body).toBe(201);
    const giftProduct = await ctx.request({
      method: "POST",
      url: "/v1/products/",
      token: catalogToken,
      payload: {
        name: "Gift box",
        prices: [{ amount_type: "fixed", price_amount: 4000 }],
        attached_custom_fields: [{ custom_field_id: giftField.json().id, required: true }],
      },
    });
    expect(giftProduct.statusCode, giftProduct.body).toBe(201);
    giftProductId = giftProduct.json().id;
    await createDiscount(ctx.deps, org.id, { code: "TEA10", name: "Ten off", basis_points: 1000 });
    hook = await startReceiver();
    await createWebhookEndpoint(ctx.deps, org.id, { url: hook.url, events: ["order.paid"] });
    worker = await startWorker({
      pool: ctx.database.pool,
      tasks: taskList(ctx.deps, ctx.services),
      concurrency: 2,
      logger: pino({ level: "silent" }),
    });
    storefront = await startStorefront((origin) => ({
      "/thanks": "<!doctype html><title>Thanks</title><h1>Thanks for your order</h1>",
      "/": `<!doctype html><html lang="en"><title>Storefront</title>
<script src="${apiOrigin}/checkout/embed.js"></script>
<script>
  window.messages = [];
  window.addEventListener("message", (event) => window.messages.push({ origin: event.origin, data: event.data }));
  window.openCheckout = (url) => window.Polar.EmbedCheckout.create(url, { theme: "dark" }).then(() => { window.embedLoaded = true; });
  // A bare iframe, without the embed script's redirect, to read what the page posts.
  window.frameCheckout = (url) => {
    const frame = document.createElement("iframe");
    frame.src = url + "?embed=true&embed_origin=" + encodeURIComponent(window.location.origin);
    frame.title = "Checkout";
    frame.style.width = "100%";
    frame.style.height = "900px";
    document.body.append(frame);
  };
</script>
<main><h1>Storefront at ${origin}</h1></main>`,
    }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await storefront?.close();
    await worker?.stop();
    await hook?.close();
    await ctx?.close();
  });

  async function openCheckout(extra: Record<string, unknown> = {}) {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/checkouts/",
      token: checkoutToken,
      payload: { products: [productId], success_url: `${storefront.origin}/thanks?checkout={CHECKOUT_ID}`, ...extra },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string; url: string; client_secret: string }>();
  }

  const publicView = async (secret: string) =>
    (await ctx.request({ method: "GET", url: `/v1/checkouts/client/${secret}` })).json<{
      total_amount: number;
      discount_amount: number;
      tax_amount: number | null;
    }>();

  /** A field by its label, which reads "(optional)" after it when the field may be left empty. */
  const field = (target: Page | Frame, label: string) =>
    target.getByLabel(new RegExp(`^${label.replace(/[()/]/g, "\\$&")}( \\(optional\\))?$`));

  /** Contact details and a French address: the street, postal code and city only when the session asks for them. */
  async function fillBuyer(target: Page | Frame, options: { fullAddress: boolean }) {
    await field(target, "Email").fill("ada@example.com");
    await field(target, "Name").fill("Ada Lovelace");
    await field(target, "Country").selectOption("FR");
    expect(await field(target, "Address").isVisible()).toBe(options.fullAddress);
    if (!options.fullAddress) return;
    await field(target, "Address").fill("1 rue de Rivoli");
    await field(target, "Postal code").fill("75001");
    await field(target, "City").fill("Paris");
    await field(target, "City").blur();
  }

  async function payWith(target: Page | Frame, card: string) {
    await field(target, "Card number").fill(card);
    await field(target, "Expiry (MM / YY)").fill("12 / 34");
    await field(target, "Security code").fill("123");
    await target.getByRole("button", { name: /^Pay / }).click();
  }

  it("buys with a discount code, a billing address and a required custom field: success URL, the order through the API, order.paid delivered", async () => {
    const checkout = await openCheckout({ products: [giftProductId], require_billing_address: true });
    const page = await browser.newPage();
    await screenshotAll(page, checkout.url, "checkout");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(checkout.url);
    await expect.poll(() => page.title()).toBe("Checkout · Tea & <Biscuits>");

    await fillBuyer(page, { fullAddress: true });
    // The required custom field left empty: the API's refusal is shown under it.
    await payWith(page, "4242 4242 4242 4242");
    await page.locator("[name='custom_field_data.gift-message'][aria-invalid=true]").waitFor();
    await expectAccessible(page);
    await field(page, "Gift message").fill("Happy birthday, Charles");
    await field(page, "Discount code").fill("TEA10");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Discount (Ten off)").waitFor();
    // The page shows the API's amounts, not its own.
    await expect.poll(async () => (await publicView(checkout.client_secret)).tax_amount).not.toBeNull();
    const view = await publicView(checkout.client_secret);
    expect(view.discount_amount).toBe(400);
    const total = new Intl.NumberFormat("en", { style: "currency", currency: "USD" }).format(view.total_amount / 100);
    await expect.poll(() => page.locator(".amounts .total dd").textContent()).toBe(total);
    await expectAccessible(page);

    await payWith(page, "4242 4242 4242 4242");
    await page.waitForURL(`${storefront.origin}/thanks?checkout=${checkout.id}`);

    const orders = await ctx.request({ method: "GET", url: `/v1/orders/?organization_id=${organizationId}`, token: ordersToken });
    const order = orders
      .json<{
        items: {
          checkout_id: string;
          discount_amount: number;
          total_amount: number;
          status: string;
          billing_address: { city: string };
          custom_field_data: Record<string, unknown>;
        }[];
      }>()
      .items.find((o) => o.checkout_id === checkout.id);
    expect(order).toMatchObject({
      status: "paid",
      discount_amount: 400,
      total_amount: view.total_amount,
      billing_address: { city: "Paris" },
      custom_field_data: { "gift-message": "Happy birthday, Charles" },
    });
    await waitFor(() => hook.received.some((r) => JSON.parse(r.body).data.checkout_id === checkout.id), 20_000);
    expect(JSON.parse(hook.received.find((r) => JSON.parse(r.body).data.checkout_id === checkout.id)!.body).type).toBe("order.paid");

    // Back on the paid session's page: it says so.
    await page.goto(checkout.url);
    await page.getByRole("heading", { name: "Thank you!" }).waitFor();
    await expectAccessible(page);
    await page.close();
  });

  it("opens a checkout link in the browser and pays on the session it opened", async () => {
    const created = await ctx.request({
      method: "POST",
      url: "/v1/checkout-links/",
      token: catalogToken,
      payload: { payment_processor: "stripe", products: [productId], success_url: `${storefront.origin}/thanks?checkout={CHECKOUT_ID}` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const page = await browser.newPage();
    await page.goto(created.json<{ url: string }>().url);
    expect(new URL(page.url()).pathname).toMatch(/^\/checkout\/polar_c_/);
    await page.getByRole("heading", { name: "Loose-leaf box" }).waitFor();
    await expectAccessible(page);
    await fillBuyer(page, { fullAddress: false });
    await payWith(page, "4242 4242 4242 4242");
    await page.waitForURL(/\/thanks\?checkout=/);
    const checkoutId = new URL(page.url()).searchParams.get("checkout")!;
    const paid = await ctx.request({ method: "GET", url: `/v1/checkouts/${checkoutId}`, token: ctx.ownerToken });
    expect(paid.json()).toMatchObject({ status: "succeeded", product_id: productId });
    await page.close();
  });

  it("picks a product, pays what the buyer wants, and buys seats: the API's amounts each time", async () => {
    const custom = await createProduct(ctx.deps, organizationId, {
      product: { name: "Pay-what-you-want tea" },
      prices: [{ amount_type: "custom", minimum_amount: 500, maximum_amount: 10_000, preset_amount: 1500 }],
    });
    const seats = await createProduct(ctx.deps, organizationId, {
      product: { name: "Team tasting" },
      prices: [{ amount_type: "seat_based", seat_tiers: JSON.stringify([{ min_seats: 1, max_seats: null, price_per_seat: 900 }]) }],
    });
    const money = (cents: number) => new Intl.NumberFormat("en", { style: "currency", currency: "USD" }).format(cents / 100);
    const total = (page: Page) => page.locator(".amounts .total dd").textContent();
    const paidOrder = async (checkoutId: string) => {
      const orders = await ctx.request({ method: "GET", url: `/v1/orders/?organization_id=${organizationId}`, token: ordersToken });
      return orders
        .json<{ items: { checkout_id: string; subtotal_amount: number; seats: number | null }[] }>()
        .items.find((o) => o.checkout_id === checkoutId);
    };

    const first = await openCheckout({ products: [productId, custom.product.id, seats.product.id] });
    const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
    await page.goto(first.url);
    await expectAccessible(page);
    await page.getByRole("radio", { name: /Pay-what-you-want tea/ }).check();
    await field(page, "Amount (USD)").waitFor();
    await field(page, "Amount (USD)").fill("12.34");
    await field(page, "Amount (USD)").blur();
    await expect.poll(() => total(page)).toBe(money(1234));
    // Below the price's minimum: the API refuses, the page says so under the amount.
    await field(page, "Amount (USD)").fill("1");
    await field(page, "Amount (USD)").blur();
    await page.locator("[name=amount][aria-invalid=true]").waitFor();
    await field(page, "Amount (USD)").fill("12.34");
    await field(page, "Amount (USD)").blur();
    await expect.poll(() => total(page)).toBe(money(1234));
    await expectAccessible(page);
    await fillBuyer(page, { fullAddress: false });
    await payWith(page, "4242 4242 4242 4242");
    await page.waitForURL(`${storefront.origin}/thanks?checkout=${first.id}`);
    expect(await paidOrder(first.id)).toMatchObject({ subtotal_amount: 1234 });

    const second = await openCheckout({ products: [productId, seats.product.id] });
    await page.goto(second.url);
    await page.getByRole("radio", { name: /Team tasting/ }).check();
    await field(page, "Seats").waitFor();
    await field(page, "Seats").fill("3");
    await field(page, "Seats").blur();
    await expect.poll(() => total(page)).toBe(money(2700));
    await fillBuyer(page, { fullAddress: false });
    await payWith(page, "4242 4242 4242 4242");
    await page.waitForURL(`${storefront.origin}/thanks?checkout=${second.id}`);
    expect(await paidOrder(second.id)).toMatchObject({ subtotal_amount: 2700, seats: 3 });
    await page.close();
  });

  it("shows a decline next to the card, then pays with a good card", async () => {
    const checkout = await openCheckout();
    const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
    await page.goto(checkout.url);
    await fillBuyer(page, { fullAddress: false });
    await payWith(page, "4000 0000 0000 0002");
    await page.getByText("Your card was declined.").waitFor();
    expect(await field(page, "Card number").getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page);
    await payWith(page, "4242424242424242");
    await page.waitForURL(`${storefront.origin}/thanks?checkout=${checkout.id}`);
    await page.close();
  });

  it("names the missing fields the API reports, next to each field", async () => {
    const checkout = await openCheckout({ require_billing_address: true });
    const page = await browser.newPage();
    await page.goto(checkout.url);
    await field(page, "Country").selectOption("FR");
    await field(page, "Address").waitFor();
    await payWith(page, "4242 4242 4242 4242");
    await page.locator("#checkout [aria-invalid=true]").first().waitFor();
    const invalid = await page.locator("#checkout [aria-invalid=true]").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("name")));
    expect(invalid).toEqual(expect.arrayContaining(["customer_email", "customer_billing_address.line1"]));
    await expectAccessible(page);
    await page.close();
  });

  it("buys inside an iframe on a storefront's origin with @polar-sh/checkout's embed script", async () => {
    const checkout = await openCheckout({ embed_origin: storefront.origin });
    const page = await browser.newPage();
    await page.goto(`${storefront.origin}/`);
    await page.evaluate(`openCheckout(${JSON.stringify(checkout.url)})`);
    await page.waitForFunction("window.embedLoaded === true");
    const frame = page.frames().find((f) => f.url().startsWith(checkout.url));
    if (!frame) throw new Error("no checkout iframe");
    expect(new URL(frame.url()).searchParams.get("embed_origin")).toBe(storefront.origin);
    await expectAccessible(frame);
    await fillBuyer(frame, { fullAddress: false });
    await payWith(frame, "4242 4242 4242 4242");
    // `success` with redirect: the embed script moves the storefront to the success URL.
    await page.waitForURL(`${storefront.origin}/thanks?checkout=${checkout.id}`);
  });

  it("posts the embed messages to the storefront's origin only, in order", async () => {
    const checkout = await openCheckout({ embed_origin: storefront.origin });
    const page = await browser.newPage();
    await page.goto(`${storefront.origin}/`);
    await page.evaluate(`frameCheckout(${JSON.stringify(checkout.url)})`);
    const frame = await (await page.waitForSelector("iframe")).contentFrame();
    if (!frame) throw new Error("no checkout iframe");
    await frame.waitForSelector("html[data-ready]");
    await fillBuyer(frame, { fullAddress: false });
    await payWith(frame, "4242 4242 4242 4242");
    const messages = () => page.evaluate<{ origin: string; data: { event: string } }[]>("window.messages");
    await expect.poll(async () => (await messages()).map((m) => m.data.event)).toEqual(["loaded", "confirmed", "success"]);
    const all = await messages();
    expect(all.every((m) => m.origin === apiOrigin)).toBe(true);
    expect(all[2]!.data).toEqual({
      type: "POLAR_CHECKOUT",
      event: "success",
      successURL: `${storefront.origin}/thanks?checkout=${checkout.id}`,
      redirect: true,
    });
    await page.close();
  });

  it("shows the product's uploaded images, the first large and the others as thumbnails, at 390 and 1280 px", async () => {
    const mediaToken = await createOrganizationToken(ctx.deps, organizationId, ["files:write", "products:write"]);
    const png = Buffer.from(LOGO_PNG_DATA_URL.split(",")[1]!, "base64");
    const medias: string[] = [];
    for (const name of ["front.png", "back.png"])
      medias.push(
        (await uploadFile(ctx, mediaToken, png, { partSize: png.length, service: "product_media", name, mimeType: "image/png" })).id,
      );
    const name = `Tea "tin" <deluxe>`;
    const created = await ctx.request({
      method: "POST",
      url: "/v1/products/",
      token: mediaToken,
      payload: { name, prices: [{ amount_type: "fixed", price_amount: 1800 }], medias },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json<{ medias: { id: string; public_url: string }[] }>().medias).toEqual([
      expect.objectContaining({ id: medias[0], public_url: `${apiOrigin}/files/public/${medias[0]}` }),
      expect.objectContaining({ id: medias[1], public_url: `${apiOrigin}/files/public/${medias[1]}` }),
    ]);
    const checkout = await openCheckout({ products: [created.json<{ id: string }>().id] });
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) refused.push(message.text());
    });
    const loaded = (image: { complete: boolean; naturalWidth: number }) => (image.complete ? image.naturalWidth : 0);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(checkout.url);
      await page.waitForSelector("html[data-ready]");
      const main = page.locator(".media-main");
      await expect.poll(() => main.evaluate(loaded)).toBeGreaterThan(0);
      expect(await main.getAttribute("alt")).toBe(name);
      // The box is the 4:3 the stylesheet reserves before the image loads, within the viewport.
      const box = (await main.boundingBox())!;
      expect(box.width).toBeLessThan(width);
      expect(box.height).toBeCloseTo((box.width * 3) / 4, 0);
      const thumbnails = page.locator(".media-thumb img");
      expect(await thumbnails.count()).toBe(2);
      for (const index of [0, 1]) await expect.poll(() => thumbnails.nth(index).evaluate(loaded)).toBeGreaterThan(0);
      await expectAccessible(page);
      await page.screenshot({ path: `test-results/checkout-media-${width}.png`, fullPage: true });
    }
    await page.getByRole("button", { name: `${name}, image 2 of 2` }).click();
    expect(await page.locator(".media-main").getAttribute("src")).toBe(`${apiOrigin}/files/public/${medias[1]}`);
    expect(await page.getByRole("button", { name: `${name}, image 2 of 2` }).getAttribute("aria-pressed")).toBe("true");
    expect(refused).toEqual([]);
    await page.close();
  });

  it("shows readable pages for an unknown and an expired session, screenshotted in both themes", async () => {
    const page = await browser.newPage();
    await screenshotAll(page, `${apiOrigin}/checkout/polar_c_unknown0000000000000000000000`, "checkout-not-found");
    await page.getByRole("heading", { name: "Checkout not found" }).waitFor();
    const checkout = await openCheckout();
    await expireCheckoutNow(ctx, checkout.id);
    await screenshotAll(page, checkout.url, "checkout-expired");
    await page.getByRole("heading", { name: "Checkout expired" }).waitFor();
    await page.close();
  });
});
