import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCancellationNotice, writeCheckoutNotice } from "../../../src/flows/seller-notices.ts";
import { createWebhookDeliveryService } from "../../../src/modules/webhooks/webhook-delivery.service.ts";
import { renderWebhookEndpointDisabled, writeWebhookEndpointDisabledEmail } from "../../../src/modules/emails/seller-notices.steps.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  registerForTax,
} from "../../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { createWebhookEndpoint, recordEvent, startReceiver, type Receiver } from "../../helpers/webhooks.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { recordDispute } from "../disputes/dispute-helpers.ts";
import { licensedProduct, payCheckout, runEmailJobs } from "./email-helpers.ts";

let smtp: TestSmtpServer;
let ctx: TestContext;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
});
afterAll(() => stopMailingContext({ ctx, smtp }));

/** A seller with a hostile name, registered for tax, its contact address `email` (none when null), and a buying token. */
async function seller(email: string | null = "seller@adaco.example") {
  const organization = await createOrganization(ctx.deps, `Ada <i>&</i> Co ${Date.now()}`);
  await ctx.deps.db.updateTable("organizations").set({ email }).where("id", "=", organization.id).execute();
  await registerForTax(ctx.deps, organization.id);
  const token = await createOrganizationToken(ctx.deps, organization.id, ["checkouts:write", "subscriptions:write"]);
  return { organization, token };
}

const noticesOf = (organizationId: string) =>
  ctx.deps.db
    .selectFrom("emails")
    .selectAll()
    .where("organization_id", "=", organizationId)
    // The seller's notices, not the customers' emails the same causes write.
    .where("sender_address", "=", ctx.deps.config.email.from.address)
    .where("sender_name", "is not distinct from", ctx.deps.config.email.from.name)
    .where("reply_to", "is", null)
    .orderBy("created_at")
    .execute();

/** The mails the seller's address received about one organization (its name is in each footer). */
const sellerMails = (address: string, organizationName: string) =>
  smtp.received.filter(
    (mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === address && mail.text?.includes(organizationName),
  );

/** Every part of a seller's notice: English, from this server's sender, no secret in it, hostile names escaped. */
function expectSellerMail(mail: (typeof smtp.received)[number], organizationName: string, secrets: readonly string[] = []) {
  expect(mail.from?.value).toEqual([{ address: "mail@shop.example", name: "Shop Mail" }]);
  expect(mail.replyTo).toBeUndefined();
  expect(mail.headers.get("list")).toMatchObject({ unsubscribe: { mail: "mail@shop.example?subject=unsubscribe" } });
  const html = String(mail.html);
  expect(html).toContain('<html lang="en">');
  expect(html).toContain(organizationName.replace("<i>&</i>", "&lt;i&gt;&amp;&lt;/i&gt;"));
  expect(html).not.toMatch(/<i>|<script/i);
  for (const part of [html, mail.text!]) {
    expect(part).not.toMatch(/polar_(cst|mst|oat|pat)_/);
    expect(part).not.toContain(smtp.password);
    for (const secret of secrets) expect(part).not.toContain(secret);
  }
}

describe("the seller's notice of a sale", () => {
  it("tells the seller of a one-time sale in English, whatever the buyer speaks, once however the completion replays", async () => {
    const { organization, token } = await seller();
    const product = await licensedProduct(ctx, organization.id, "Pro <script>alert(1)</script>");
    const { order, sessionToken } = await payCheckout(ctx, token, product.product.id, { email: "zoe@example.fr", locale: "fr-FR" });
    const notices = await noticesOf(organization.id);
    expect(notices).toMatchObject([
      { template: "seller_new_sale", dedupe_key: `seller_new_sale:${order.id}`, recipient: "seller@adaco.example", locale: null },
    ]);

    // The completion's notice written again (a replayed cause): still one.
    await ctx.deps.db.transaction().execute(async (trx) => {
      const organizationRow = await trx.selectFrom("organizations").selectAll().where("id", "=", organization.id).executeTakeFirstOrThrow();
      const customer = await trx.selectFrom("customers").selectAll().where("id", "=", order.customer_id).executeTakeFirstOrThrow();
      const completed = {
        organization: organizationRow,
        customer,
        order,
        subscription: null,
        product: product.product,
        now: ctx.deps.now(),
      };
      await writeCheckoutNotice(trx, ctx.deps, completed);
      await writeCheckoutNotice(trx, ctx.deps, completed);
    });
    expect(await noticesOf(organization.id)).toHaveLength(1);

    await runEmailJobs(ctx);
    const [mail, ...others] = sellerMails("seller@adaco.example", organization.name);
    expect(others).toEqual([]);
    // 100.00 plus French VAT: what the buyer paid.
    expect(mail!.subject).toBe("You've made a new sale ($120.00)!");
    expectSellerMail(mail!, organization.name, [sessionToken]);
    expect(mail!.text).toContain("zoe@example.fr bought Pro <script>alert(1)</script> for $120.00.");
    expect(String(mail!.html)).toContain("Pro &lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("writes nothing when the organization has no contact address", async () => {
    const { organization, token } = await seller(null);
    const product = await licensedProduct(ctx, organization.id, "Unheard");
    await payCheckout(ctx, token, product.product.id, { email: "buyer@example.com" });
    expect(await noticesOf(organization.id)).toEqual([]);
  });
});

describe("the seller's notice of a new subscriber", () => {
  it("tells the seller of a subscription, a trial included, with its price per period, and no sale", async () => {
    const { organization, token } = await seller();
    const plan = (name: string, count: number, trialDays?: number) =>
      createProduct(ctx.deps, organization.id, {
        product: {
          name,
          recurring_interval: "month",
          recurring_interval_count: count,
          ...(trialDays ? { trial_interval: "day" as const, trial_interval_count: trialDays } : {}),
        },
        prices: [{ amount_type: "fixed", price_amount: 1_500 }],
      });
    const trial = await buyThroughCheckout(ctx, token, (await plan("Team <b>Plan</b>", 1, 7)).product.id, {
      buyer: { customer_email: "trial@example.com" },
    });
    ctx.clock.advance(1_000);
    const semester = await buyThroughCheckout(ctx, token, (await plan("Semester", 6)).product.id, {
      buyer: { customer_email: "semester@example.com" },
    });
    const notices = await noticesOf(organization.id);
    expect(notices.map((email) => email.dedupe_key)).toEqual([
      `seller_new_subscription:${trial.checkout.subscription_id}`,
      `seller_new_subscription:${semester.checkout.subscription_id}`,
    ]);

    await runEmailJobs(ctx);
    const mails = sellerMails("seller@adaco.example", organization.name);
    // Sent side by side: in either order.
    expect(mails.map((mail) => mail.subject).sort()).toEqual([
      "You have a new subscriber on Semester ($15.00/6 months)!",
      "You have a new subscriber on Team <b>Plan</b> ($15.00/month)!",
    ]);
    const trialMail = mails.find((mail) => mail.subject!.includes("Team"))!;
    expectSellerMail(trialMail, organization.name);
    expect(trialMail.text).toContain("trial@example.com subscribed to Team <b>Plan</b> at $15.00/month.");
    expect(trialMail.text).toMatch(/Their trial ends on \w+ \d+, \d{4}; the first charge follows\./);
    expect(String(trialMail.html)).toContain("Team &lt;b&gt;Plan&lt;/b&gt;");
    expect(mails.find((mail) => mail.subject!.includes("Semester"))!.text).not.toContain("trial");
  });
});

describe("the seller's notice of a cancellation", () => {
  it("tells the seller when a customer cancels (each cancellation once), not when the merchant does", async () => {
    const { organization, token } = await seller();
    const product = await createProduct(ctx.deps, organization.id, {
      product: { name: "Monthly <i>x</i>", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1_500 }],
    });
    const bought = await buyThroughCheckout(ctx, token, product.product.id, { buyer: { customer_email: "leaver@example.com" } });
    const subscriptionId = bought.checkout.subscription_id;
    const customerToken = await createCustomerSessionToken(ctx.deps, bought.checkout.customer_id);
    const portal = (method: "DELETE" | "PATCH", payload?: Record<string, unknown>) =>
      ctx.request({ method, url: `/v1/customer-portal/subscriptions/${subscriptionId}`, token: customerToken, payload });
    const cancellations = async () =>
      (await noticesOf(organization.id)).filter((email) => email.template === "seller_subscription_canceled");

    const canceled = await portal("PATCH", {
      cancel_at_period_end: true,
      cancellation_reason: "too_expensive",
      cancellation_comment: "Costs <more> than it's worth",
    });
    expect(canceled.statusCode, canceled.body).toBe(200);
    // The same cancellation's notice written again (a replayed change): still one.
    const after = await ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscriptionId).executeTakeFirstOrThrow();
    const replay = { before: { ...after, cancel_at_period_end: false }, after, actor: "customer" as const, now: ctx.deps.now() };
    await ctx.deps.db.transaction().execute((trx) => writeCancellationNotice(trx, ctx.deps, replay));
    expect(await cancellations()).toHaveLength(1);
    // Uncanceled, then canceled again: a second cancellation, a second notice.
    expect((await portal("PATCH", { cancel_at_period_end: false })).statusCode).toBe(200);
    ctx.clock.advance(60_000);
    expect((await portal("DELETE")).statusCode).toBe(200);
    expect(await cancellations()).toHaveLength(2);
    // The merchant's own cancellation is not told back to it.
    expect((await portal("PATCH", { cancel_at_period_end: false })).statusCode).toBe(200);
    const merchant = await ctx.request({
      method: "PATCH",
      url: `/v1/subscriptions/${subscriptionId}`,
      token,
      payload: { cancel_at_period_end: true },
    });
    expect(merchant.statusCode, merchant.body).toBe(200);
    expect(await cancellations()).toHaveLength(2);

    await runEmailJobs(ctx);
    const mails = sellerMails("seller@adaco.example", organization.name).filter((mail) => mail.subject?.includes("canceled"));
    expect(mails.map((mail) => mail.subject)).toEqual([
      "leaver@example.com canceled their Monthly <i>x</i> subscription",
      "leaver@example.com canceled their Monthly <i>x</i> subscription",
    ]);
    // The two notices go out in one batch, so their arrival order is not theirs to keep.
    const explained = mails.filter((mail) => mail.text?.includes("Reason given"));
    expect(explained).toHaveLength(1);
    expectSellerMail(explained[0]!, organization.name, [customerToken]);
    expect(explained[0]!.text).toContain("Reason given: too expensive.");
    expect(explained[0]!.text).toContain("Their comment: Costs <more> than it's worth");
    expect(String(explained[0]!.html)).toContain("Costs &lt;more&gt; than it&#39;s worth");
  });
});

describe("the seller's notice of a disabled webhook endpoint", () => {
  it("renders the endpoint's address, escaped, with how to enable it again", () => {
    const rendered = renderWebhookEndpointDisabled({
      organization: { name: "Ada <i>&</i> Co", logoUrl: null },
      recipient: "seller@adaco.example",
      endpointUrl: "https://hooks.example/in?a=1&b=<2>",
    });
    expect(rendered.subject).toBe("Webhook endpoint disabled for Ada <i>&</i> Co");
    expect(rendered.text).toContain("Deliveries to https://hooks.example/in?a=1&b=<2> kept failing");
    expect(rendered.text).toContain("PATCH /v1/webhooks/endpoints/{id}");
    expect(rendered.html).toContain("https://hooks.example/in?a=1&amp;b=&lt;2&gt;");
    expect(rendered.html).not.toMatch(/<i>|<2>/);
  });

  it("writes one email per disabling to the seller's address, none without one", async () => {
    const { organization } = await seller();
    const { organization: silent } = await seller(null);
    const row = (id: string) => ctx.deps.db.selectFrom("organizations").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const disable = async (id: string) => {
      const endpoint = { id: "5d0e2c1b-8a3f-4e6d-9b7c-1f2a3b4c5d6e", url: "https://hooks.example/in" };
      const disabled = { organization: await row(id), endpoint, now: ctx.deps.now() };
      return ctx.deps.db.transaction().execute((trx) => writeWebhookEndpointDisabledEmail(trx, ctx.deps, disabled));
    };
    expect(await disable(organization.id)).toEqual(expect.any(String));
    // The same disabling written again (a replay): nothing more.
    expect(await disable(organization.id)).toBeNull();
    expect(await disable(silent.id)).toBeNull();
    expect(await noticesOf(silent.id)).toEqual([]);
    expect(await noticesOf(organization.id)).toMatchObject([{ template: "webhook_endpoint_disabled", recipient: "seller@adaco.example" }]);

    await runEmailJobs(ctx);
    const [mail, ...others] = sellerMails("seller@adaco.example", organization.name);
    expect(others).toEqual([]);
    expect(mail!.subject).toBe(`Webhook endpoint disabled for ${organization.name}`);
    expectSellerMail(mail!, organization.name);
    expect(mail!.text).toContain("https://hooks.example/in");
  });
});

describe("the seller's notice of a dispute", () => {
  it("tells the seller when a dispute is first recorded, once whatever events follow", async () => {
    const { organization, token } = await seller();
    const product = await licensedProduct(ctx, organization.id, "Disputed <b>kit</b>");
    const { order } = await payCheckout(ctx, token, product.product.id, { email: "chargeback@example.com" });
    const opened = await recordDispute(ctx, order, { processorDisputeId: `dp_notice_${order.id}` });
    ctx.clock.advance(60_000);
    await recordDispute(ctx, order, {
      processorDisputeId: `dp_notice_${order.id}`,
      status: "under_review",
      processorEventCreatedAt: ctx.deps.now(),
    });
    const disputes = (await noticesOf(organization.id)).filter((email) => email.template === "seller_dispute_opened");
    expect(disputes.map((email) => email.dedupe_key)).toEqual([`seller_dispute_opened:${opened!.id}`]);

    await runEmailJobs(ctx);
    const [mail] = sellerMails("seller@adaco.example", organization.name).filter((sent) => sent.subject?.includes("disputed"));
    expect(mail!.subject).toBe("A payment of $120.00 was disputed");
    expectSellerMail(mail!, organization.name);
    expect(mail!.text).toContain(`The customer's bank disputed the payment of Disputed <b>kit</b> (order ${order.invoice_number}).`);
    expect(mail!.text).toContain("Reason given: fraudulent.");
    expect(mail!.text).toMatch(/Evidence is due by \w+ \d+, \d{4}\./);
    expect(String(mail!.html)).toContain("Disputed &lt;b&gt;kit&lt;/b&gt;");
  });
});

describe("the seller's switches (`notification_settings`)", () => {
  const receivers: Receiver[] = [];
  afterAll(() => Promise.all(receivers.map((receiver) => receiver.close())));

  const switchNotices = (organizationId: string, notification_settings: Record<string, boolean>) =>
    ctx.request({ method: "PATCH", url: `/v1/organizations/${organizationId}`, token: ctx.ownerToken, payload: { notification_settings } });

  /**
   * Causes each of the seller's five notices as it happens: a sale, a dispute of it, a subscriber,
   * their cancellation in the portal, and a webhook endpoint disabled by its receiver's `410 Gone`.
   */
  async function causeEveryNotice(organizationId: string, token: string) {
    const { order } = await payCheckout(ctx, token, (await licensedProduct(ctx, organizationId, "Switched kit")).product.id, {
      email: `buyer-${organizationId}@example.com`,
    });
    await recordDispute(ctx, order, { processorDisputeId: `dp_switch_${order.id}` });
    const plan = await createProduct(ctx.deps, organizationId, {
      product: { name: "Switched plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1_500 }],
    });
    const bought = await buyThroughCheckout(ctx, token, plan.product.id, {
      buyer: { customer_email: `sub-${organizationId}@example.com` },
    });
    const cancel = await ctx.request({
      method: "DELETE",
      url: `/v1/customer-portal/subscriptions/${bought.checkout.subscription_id}`,
      token: await createCustomerSessionToken(ctx.deps, bought.checkout.customer_id),
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const gone = await startReceiver(() => ({ status: 410 }));
    receivers.push(gone);
    const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, { url: gone.url });
    const delivery = createWebhookDeliveryService(ctx.deps, { random: () => 0.5 });
    await delivery.fanOutEvent(await recordEvent(ctx.deps, organizationId));
    expect(await delivery.deliverEndpoint(endpoint.id)).toBe(true);
  }

  const EVERY_NOTICE = [
    "seller_dispute_opened",
    "seller_new_sale",
    "seller_new_subscription",
    "seller_subscription_canceled",
    "webhook_endpoint_disabled",
  ];

  it.each([
    { setting: "new_order", silenced: "seller_new_sale" },
    { setting: "new_subscription", silenced: "seller_new_subscription" },
    { setting: "subscription_cancellation", silenced: "seller_subscription_canceled" },
    { setting: "dispute_opened", silenced: "seller_dispute_opened" },
    { setting: "webhook_endpoint_disabled", silenced: "webhook_endpoint_disabled" },
    // The reference's switch of a notice this server does not send: every notice still goes.
    { setting: "chargeback_prevention", silenced: "none" },
  ])("$setting off: its notice ($silenced) is neither written nor sent, every other one is", async ({ setting, silenced }) => {
    const address = `${setting}@adaco.example`;
    const { organization, token } = await seller(address);
    const switchedOff = await switchNotices(organization.id, { [setting]: false });
    expect(switchedOff.statusCode, switchedOff.body).toBe(200);
    expect(switchedOff.json().notification_settings[setting]).toBe(false);

    await causeEveryNotice(organization.id, token);
    const notices = await noticesOf(organization.id);
    expect(notices.map((email) => email.template).sort()).toEqual(EVERY_NOTICE.filter((template) => template !== silenced));

    // What the mail server received is exactly those: nothing for the silenced notice.
    await runEmailJobs(ctx);
    const received = sellerMails(address, organization.name);
    expect(received.map((mail) => mail.messageId).sort()).toEqual(notices.map((email) => email.message_id).sort());
  });

  it("a notice switched off is not written later; switched on again, the next cause is told", async () => {
    const { organization, token } = await seller("again@adaco.example");
    expect((await switchNotices(organization.id, { new_order: false, subscription_renewal: true })).statusCode).toBe(200);
    await payCheckout(ctx, token, (await licensedProduct(ctx, organization.id, "Quiet kit")).product.id, { email: "quiet@example.com" });
    const switchOn = await switchNotices(organization.id, { new_order: true });
    expect(switchOn.json().notification_settings).toMatchObject({ new_order: true, subscription_renewal: true });
    const { order } = await payCheckout(ctx, token, (await licensedProduct(ctx, organization.id, "Loud kit")).product.id, {
      email: "loud@example.com",
    });
    expect((await noticesOf(organization.id)).map((email) => email.dedupe_key)).toEqual([`seller_new_sale:${order.id}`]);

    await runEmailJobs(ctx);
    expect(sellerMails("again@adaco.example", organization.name).map((mail) => mail.subject)).toEqual([
      "You've made a new sale ($120.00)!",
    ]);
  });
});
