import pino from "pino";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type JobWorker } from "../../src/jobs/runner.ts";
import { taskList } from "../../src/tasks.ts";
import { expectAccessible, launchBrowser, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import type { TestContext } from "../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken, createProduct } from "../helpers/factories.ts";
import { startStripeStandIn, type StripeStandIn } from "../helpers/stripe-stand-in/stand-in.ts";
import { stripeEnv } from "../helpers/stripe-stand-in/stripe-context.ts";
import { openPortalSession } from "../modules/portal-page/portal-page-helpers.ts";
import { WEBHOOK_URL } from "../modules/processor-events/stripe-webhook-helpers.ts";

/**
 * The hosted checkout page paying through the Stripe adapter in headless Chromium: the page loads
 * the stand-in's Stripe.js from STRIPE_JS_URL, the app talks to the stand-in's API, and the
 * stand-in's signed events reach the app's webhook, handled by a real worker. The customer portal's
 * card form is the same payment form: its 3-D Secure step is here too.
 */
describe.skipIf(!chromiumAvailable)("checkout page paying through Stripe", { timeout: 120_000 }, () => {
  let ctx: TestContext;
  let stripe: StripeStandIn;
  let browser: Browser;
  let worker: JobWorker;
  let checkoutToken: string;
  let ordersToken: string;
  let organizationId: string;
  let productId: string;

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    let origin: string;
    ({ ctx, origin } = await startListeningContext(stripeEnv(stripe)));
    stripe.deliverTo(`${origin}${WEBHOOK_URL}`);
    const org = await createOrganization(ctx.deps, "Kettle & Co");
    organizationId = org.id;
    checkoutToken = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
    ordersToken = await createOrganizationToken(ctx.deps, org.id, ["orders:read"]);
    productId = (await createProduct(ctx.deps, org.id, { product: { name: "Copper kettle" } })).product.id;
    worker = await startWorker({
      pool: ctx.database.pool,
      tasks: taskList(ctx.deps, ctx.services),
      concurrency: 2,
      logger: pino({ level: "silent" }),
    });
    browser = await launchBrowser();
  });
  afterEach(() => stripe.assertNoViolations());
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await ctx?.close();
    await stripe?.close();
  });

  async function openCheckout() {
    const response = await ctx.request({ method: "POST", url: "/v1/checkouts/", token: checkoutToken, payload: { products: [productId] } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string; url: string; client_secret: string; total_amount: number; payment_processor_metadata: unknown }>();
  }

  /** The order of a checkout through the API, with its payment's processor reference from the database. */
  async function orderOf(checkoutId: string) {
    const orders = await ctx.request({ method: "GET", url: `/v1/orders/?organization_id=${organizationId}`, token: ordersToken });
    expect(orders.statusCode, orders.body).toBe(200);
    const order = orders
      .json<{ items: { id: string; checkout_id: string; status: string; total_amount: number }[] }>()
      .items.find((candidate) => candidate.checkout_id === checkoutId);
    if (!order) return null;
    const payments = await ctx.deps.db.selectFrom("payments").selectAll().where("order_id", "=", order.id).execute();
    return {
      ...order,
      payments: payments.map((payment) => ({ status: payment.status, reference: payment.processor_reference, amount: payment.amount })),
    };
  }

  async function fillBuyer(page: Page) {
    await page.getByLabel(/^Email/).fill("ada@example.com");
    await page.getByLabel(/^Name/).fill("Ada Lovelace");
    await page.getByLabel(/^Country/).selectOption("FR");
  }

  async function payWith(page: Page, paymentMethod: string) {
    await page.getByLabel("Test payment method").selectOption(paymentMethod);
    await page.getByRole("button", { name: /^Pay / }).click();
  }

  const thankYou = (page: Page) => page.getByRole("heading", { name: "Thank you!" }).waitFor();

  it("buys with a card: the page loads Stripe.js, makes a confirmation token with every billing detail, and lands on the paid order", async () => {
    const checkout = await openCheckout();
    // Stripe.js in the buyer's browser needs the publishable key (notes §2); the sandbox's sessions stay `{}`.
    expect(checkout.payment_processor_metadata).toEqual({ publishable_key: stripe.publishableKey });
    const page = await browser.newPage();
    const response = await page.goto(checkout.url);
    const csp = (await response!.allHeaders())["content-security-policy"]!;
    expect(csp).toContain(`connect-src 'self' ${stripe.url}`);
    expect(csp).toContain(`frame-src ${stripe.url}`);
    expect(csp).toMatch(new RegExp(`script-src 'sha256-[^']+' ${stripe.url.replace(/[.]/g, "\\.")};`));
    await page.getByLabel("Test payment method").waitFor();
    await expectAccessible(page);
    await fillBuyer(page);
    const tokensBefore = stripe.browserTokens.length;
    await payWith(page, "pm_card_visa");
    await thankYou(page);

    expect(stripe.browserTokens.slice(tokensBefore)).toEqual([
      {
        id: expect.stringMatching(/^ctoken_/),
        paymentMethod: "pm_card_visa",
        billingDetails: {
          name: "Ada Lovelace",
          email: "ada@example.com",
          phone: null,
          address: { line1: null, line2: null, city: null, state: null, postal_code: null, country: "FR" },
        },
        elements: { mode: "payment", amount: checkout.total_amount, currency: "usd", paymentMethodCreation: "manual" },
      },
    ]);
    const order = await orderOf(checkout.id);
    expect(order).toMatchObject({ status: "paid", total_amount: checkout.total_amount });
    expect(order!.payments).toEqual([{ status: "succeeded", reference: expect.stringMatching(/^pi_/), amount: checkout.total_amount }]);
    await page.close();
  });

  it("shows a declined card's refusal by the payment form, and the buyer pays with another card", async () => {
    const checkout = await openCheckout();
    const page = await browser.newPage();
    await page.goto(checkout.url);
    await fillBuyer(page);
    await payWith(page, "pm_card_chargeDeclined");
    await page.locator("fieldset.payment [role=alert]").getByText("Your card was declined.").waitFor();
    await expectAccessible(page);
    expect(await orderOf(checkout.id)).toBeNull();

    await payWith(page, "pm_card_visa");
    await thankYou(page);
    expect(await orderOf(checkout.id)).toMatchObject({ status: "paid" });
    await page.close();
  });

  it("finishes 3-D Secure on the page, then waits: the order exists only once Stripe's event says the money moved", async () => {
    const checkout = await openCheckout();
    const page = await browser.newPage();
    await page.goto(checkout.url);
    await fillBuyer(page);
    await payWith(page, "pm_card_authenticationRequired");
    const challenge = page.getByRole("dialog", { name: "3D Secure 2 Test Page" });
    await challenge.waitFor();
    // Confirmed and waiting for the buyer: nothing is paid yet.
    const waiting = await ctx.request({ method: "GET", url: `/v1/checkouts/client/${checkout.client_secret}` });
    expect(waiting.json()).toMatchObject({ status: "confirmed", payment_processor_metadata: { intent_status: "requires_action" } });
    expect(await orderOf(checkout.id)).toBeNull();

    // Stripe's events wait, so the page's wait can be seen.
    stripe.setDelivery("held");
    await challenge.getByRole("button", { name: "Complete authentication" }).click();
    // The buyer has done their part; the page waits for the server, which has not heard from Stripe yet.
    await page.getByRole("button", { name: "Confirming your payment…" }).waitFor();
    await challenge.waitFor({ state: "detached" });
    expect(await orderOf(checkout.id)).toBeNull();

    // Stripe's events reach the webhook: the worker settles the session from them alone.
    stripe.setDelivery("immediate");
    expect(await stripe.release()).toEqual(expect.arrayContaining([202]));
    await thankYou(page);
    const order = await orderOf(checkout.id);
    expect(order).toMatchObject({ status: "paid" });
    expect(stripe.events.filter((event) => event.type === "payment_intent.succeeded").map((event) => event.data.object.id)).toContain(
      order!.payments[0]!.reference,
    );
    await page.close();
  });

  it("reopens the form when the 3-D Secure challenge fails, with Stripe's message; another card then pays", async () => {
    const checkout = await openCheckout();
    const page = await browser.newPage();
    await page.goto(checkout.url);
    await fillBuyer(page);
    await payWith(page, "pm_card_authenticationRequired");
    const challenge = page.getByRole("dialog", { name: "3D Secure 2 Test Page" });
    await challenge.getByRole("button", { name: "Fail authentication" }).click();
    await page.getByRole("button", { name: "Confirming your payment…" }).waitFor();
    await page
      .locator("fieldset.payment [role=alert]")
      .getByText(/unable to authenticate your payment method/)
      .waitFor();
    const reopened = await ctx.request({ method: "GET", url: `/v1/checkouts/client/${checkout.client_secret}` });
    expect(reopened.json()).toMatchObject({ status: "open", payment_processor_metadata: { publishable_key: stripe.publishableKey } });
    expect(reopened.json().payment_processor_metadata).not.toHaveProperty("intent_client_secret");
    expect(await orderOf(checkout.id)).toBeNull();

    await payWith(page, "pm_card_visa");
    await thankYou(page);
    expect(await orderOf(checkout.id)).toMatchObject({ status: "paid" });
    await page.close();
  });

  it("saves a card in the customer portal after the bank's 3-D Secure check on the page", async () => {
    const customer = await createCustomer(ctx.deps, organizationId, { email: "grace@example.com" });
    const link = await openPortalSession(ctx, organizationId, customer.id);
    const page = await browser.newPage();
    await page.goto(link.url);
    await page.waitForSelector("html[data-ready]");
    await page.getByLabel("Test payment method").selectOption("pm_card_authenticationRequired");
    await page.getByRole("button", { name: "Save payment method" }).click();
    const challenge = page.getByRole("dialog", { name: "3D Secure 2 Test Page" });
    await challenge.waitFor();
    // Waiting for the bank: the page says so, and nothing is saved yet.
    await page.getByText("Your bank asks you to confirm this card before it is saved.").waitFor();
    const saved = () =>
      ctx.deps.db
        .selectFrom("payment_methods")
        .select(["processor_reference", "processor_customer_reference"])
        .where("customer_id", "=", customer.id)
        .execute();
    expect(await saved()).toEqual([]);
    await expectAccessible(page);

    await challenge.getByRole("button", { name: "Complete authentication" }).click();
    await page.getByText("Your payment method is saved.").waitFor();
    expect(await saved()).toEqual([
      { processor_reference: expect.stringMatching(/^pm_/), processor_customer_reference: expect.stringMatching(/^cus_/) },
    ]);
    await page.close();
  });
});
