import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCUMENT_LINK_TTL_MS } from "../../../src/modules/orders/order-document-links.ts";
import { addInterval } from "../../../src/values/calendar.ts";
import type { TestContext } from "../../helpers/context.ts";
import { writeRenewalPaidEmail } from "../../../src/flows/order-paid-email.ts";
import { writeSubscriptionNotice } from "../../../src/flows/subscription-notice-email.ts";
import {
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  registerForTax,
} from "../../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { createRefund, paidOrder } from "../refunds/refund-helpers.ts";
import { buyThroughCheckout, giveSubscriptionWorkingCard } from "../subscriptions/subscription-helpers.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { runDocumentJobs } from "../orders/order-documents-helpers.ts";
import { hasListUnsubscribe, runEmailJobs } from "./email-helpers.ts";

// A subscription's emails, each written in the transaction of its cause: its confirmation, the
// conversion at its trial's end, each renewal, its cancellation, uncancel and end; and a refund's notice.

let smtp: TestSmtpServer;
let ctx: TestContext;
let org: { id: string; name: string };
let portal: string;
let checkoutToken: string;
let subscriptionToken: string;
let refundToken: string;
let invoiceToken: string;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
  org = await createOrganization(ctx.deps, `Ada & <i>Co</i> ${Date.now()}`);
  await registerForTax(ctx.deps, org.id);
  const { slug } = await ctx.deps.db.selectFrom("organizations").select("slug").where("id", "=", org.id).executeTakeFirstOrThrow();
  portal = `${ctx.deps.config.checkoutBaseUrl}/${slug}/portal`;
  [checkoutToken, subscriptionToken, refundToken, invoiceToken] = await Promise.all([
    createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]),
    createOrganizationToken(ctx.deps, org.id, ["subscriptions:write"]),
    createOrganizationToken(ctx.deps, org.id, ["refunds:write"]),
    createOrganizationToken(ctx.deps, org.id, ["orders:read"]),
  ]);
});
afterAll(() => stopMailingContext({ ctx, smtp }));

const DAY = 24 * 60 * 60 * 1000;
const HOSTILE = "Pro <script>alert(1)</script>";
const sweep = () => ctx.services.subscriptionRenewals.sweep();
const later = (ms: number) => ctx.clock.set(new Date(ctx.clock.now().getTime() + ms));
const usd = (locale: string, minor: number) => new Intl.NumberFormat(locale, { style: "currency", currency: "USD" }).format(minor / 100);

/** A monthly plan at `amount` before tax (France's 20% is added at checkout), granting a license key. */
const monthlyPlan = (name: string, extra: Record<string, unknown> = {}, amount = 2000) =>
  createProduct(ctx.deps, org.id, {
    product: { name, recurring_interval: "month", recurring_interval_count: 1, ...extra },
    prices: [{ amount_type: "fixed", price_amount: amount }],
    benefits: [{ type: "license_keys", description: `${name} key` }],
  });

async function subscribe(productId: string, email: string, checkout: Record<string, unknown> = {}, card?: string) {
  const { checkout: done } = await buyThroughCheckout(ctx, checkoutToken, productId, {
    buyer: { customer_email: email },
    checkout,
    ...(card ? { card } : {}),
  });
  return done;
}

const subscriptionRow = (id: string) => ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** The outbox rows written to `recipient`, oldest first. */
const emailsTo = (recipient: string) =>
  ctx.deps.db.selectFrom("emails").selectAll().where("recipient", "=", recipient).orderBy("created_at").orderBy("template").execute();

/**
 * Sends what is due and returns every message `address` received, in the order they were written
 * (a job sends a batch side by side, so they may arrive in another).
 */
async function mailsTo(address: string): Promise<ParsedMail[]> {
  await runEmailJobs(ctx);
  const written = (await emailsTo(address)).map((row) => row.message_id);
  return smtp.received
    .filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === address)
    .sort((a, b) => written.indexOf(a.messageId!) - written.indexOf(b.messageId!));
}

const patch = (id: string, payload: Record<string, unknown>) =>
  ctx.request({ method: "PATCH", url: `/v1/subscriptions/${id}`, token: subscriptionToken, payload });

/** Both parts of a customer email: the seller's name escaped, its button (the portal's), no token of any kind. */
function expectCustomerEmail(mail: ParsedMail, product: string, link = portal): { html: string; text: string } {
  const html = String(mail.html);
  const text = mail.text!;
  expect(mail.from?.value).toEqual([{ address: "mail@shop.example", name: org.name }]);
  expect(html).toContain(org.name.replace("&", "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
  expect(html).not.toMatch(/<i>Co<\/i>|<script/i);
  expect(html).toContain(product.replace(/</g, "&lt;").replace(/>/g, "&gt;"));
  expect(text).toContain(product);
  expect(html).toContain(`href="${link.replaceAll("&", "&amp;")}"`);
  expect(text).toContain(link);
  for (const part of [html, text]) {
    expect(part).not.toMatch(/polar_(cst|mst|oat|pat)_/);
    expect(part).not.toContain(smtp.password);
  }
  return { html, text };
}

describe("order emails of a subscription", () => {
  it("confirms a trial's $0 order, then the conversion at the trial's end, then each renewal: one receipt each, whatever replays", async () => {
    ctx.clock.set(new Date("2027-03-10T09:00:00.000Z"));
    const plan = await monthlyPlan(HOSTILE, { trial_interval: "day", trial_interval_count: 7 });
    const { subscription_id: id } = await subscribe(plan.product.id, "trial@example.com");

    const [confirmation] = await mailsTo("trial@example.com");
    expect(confirmation!.subject).toBe(`Your ${HOSTILE} subscription`);
    expect(hasListUnsubscribe(confirmation!)).toBe(false);
    const first = expectCustomerEmail(confirmation!, HOSTILE);
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .select("key")
      .where("customer_id", "=", (await subscriptionRow(id)).customer_id)
      .executeTakeFirstOrThrow();
    for (const part of [first.html, first.text]) {
      expect(part).toContain("Thank you for subscribing!");
      expect(part).toContain(key.key);
      expect(part).toContain("$0.00");
    }

    ctx.clock.set(new Date("2027-03-17T09:00:00.000Z"));
    await sweep();
    await sweep();
    ctx.clock.set(new Date("2027-04-17T09:00:00.000Z"));
    await sweep();
    await sweep();
    const mails = await mailsTo("trial@example.com");
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Your ${HOSTILE} subscription`,
      `Your ${HOSTILE} subscription is now active`,
      `Your ${HOSTILE} subscription has been renewed`,
    ]);
    for (const mail of mails.slice(1)) {
      const { html, text } = expectCustomerEmail(mail, HOSTILE);
      // 20.00 plus French VAT; a renewal lists no benefits.
      for (const part of [html, text]) expect(part).toContain("$24.00");
      expect(text).not.toContain(key.key);
    }
    const orders = await ctx.deps.db
      .selectFrom("orders")
      .select(["id", "receipt_number"])
      .where("subscription_id", "=", id)
      .orderBy("created_at")
      .execute();
    expect((await emailsTo("trial@example.com")).map((row) => [row.template, row.dedupe_key, row.status])).toEqual([
      ["subscription_confirmation", `subscription_confirmation:${orders[0]!.id}`, "sent"],
      ["subscription_cycled_after_trial", `subscription_cycled_after_trial:${orders[1]!.id}`, "sent"],
      ["subscription_cycled", `subscription_cycled:${orders[2]!.id}`, "sent"],
    ]);
    expect(mails[2]!.text).toContain(orders[2]!.receipt_number!);

    // The payment's transaction replayed (a retried job): still one receipt per order.
    const paid = await ctx.deps.db.selectFrom("orders").selectAll().where("subscription_id", "=", id).orderBy("created_at").execute();
    const subscription = await ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const customer = await ctx.deps.db
      .selectFrom("customers")
      .selectAll()
      .where("id", "=", subscription.customer_id)
      .executeTakeFirstOrThrow();
    await ctx.deps.db.transaction().execute(async (trx) => {
      for (const order of paid.slice(1))
        await writeRenewalPaidEmail(trx, ctx.deps, { order, items: [], subscription, customer }, ctx.deps.now());
    });
    expect(await emailsTo("trial@example.com")).toHaveLength(3);
  });

  it("confirms a trial ended early by the merchant as its conversion", async () => {
    ctx.clock.set(new Date("2027-05-02T09:00:00.000Z"));
    const plan = await monthlyPlan("Early", { trial_interval: "day", trial_interval_count: 14 });
    const { subscription_id: id } = await subscribe(plan.product.id, "early@example.com");
    later(DAY);
    expect((await patch(id, { trial_end: "now" })).statusCode).toBe(200);
    expect((await emailsTo("early@example.com")).map((row) => row.template)).toEqual([
      "subscription_confirmation",
      "subscription_cycled_after_trial",
    ]);
  });

  it("sends the receipt of a renewal paid by a dunning retry once it is paid, and none while it fails", async () => {
    const t0 = new Date("2027-06-05T10:00:00.000Z");
    ctx.clock.set(addInterval(t0, "month", -1));
    const plan = await monthlyPlan("Retried");
    const { subscription_id: id, customer_id: customerId } = await subscribe(
      plan.product.id,
      "retry@example.com",
      {},
      "tok_chargeCustomerFail",
    );
    ctx.clock.set(t0);
    await sweep();
    // No receipt while the renewal fails; the customer is told it failed.
    expect((await emailsTo("retry@example.com")).map((row) => row.template)).toEqual([
      "subscription_confirmation",
      "subscription_past_due",
    ]);
    // A working card becomes the subscription's: the retry at +2 days pays the renewal.
    await giveSubscriptionWorkingCard(ctx, { organizationId: org.id, customerId: customerId, subscriptionId: id });
    ctx.clock.set(new Date(t0.getTime() + 2 * DAY));
    await sweep();
    expect((await subscriptionRow(id)).status).toBe("active");
    const mails = await mailsTo("retry@example.com");
    expect(mails.map((mail) => mail.subject)).toEqual([
      "Your Retried subscription",
      "Your Retried payment failed",
      "Your Retried subscription has been renewed",
    ]);
  });

  it("confirms a free subscription but sends no receipt for its renewals", async () => {
    ctx.clock.set(new Date("2027-07-01T09:00:00.000Z"));
    const free = await createProduct(ctx.deps, org.id, {
      product: { name: "Free tier", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "free" }],
    });
    const { subscription_id: id } = await subscribe(free.product.id, "free@example.com");
    ctx.clock.set(new Date("2027-08-01T09:00:00.000Z"));
    await sweep();
    ctx.clock.set(new Date("2027-09-01T09:00:00.000Z"));
    await sweep();
    // Renewed and paid, at nothing.
    const orders = await ctx.deps.db
      .selectFrom("orders")
      .select(["billing_reason", "status", "total_amount"])
      .where("subscription_id", "=", id)
      .orderBy("created_at")
      .execute();
    expect(orders).toEqual([
      { billing_reason: "subscription_create", status: "paid", total_amount: 0 },
      { billing_reason: "subscription_cycle", status: "paid", total_amount: 0 },
      { billing_reason: "subscription_cycle", status: "paid", total_amount: 0 },
    ]);
    expect((await emailsTo("free@example.com")).map((row) => row.template)).toEqual(["subscription_confirmation"]);
  });

  it("writes in the customer's language, amounts in the locale's format", async () => {
    ctx.clock.set(new Date("2027-10-03T09:00:00.000Z"));
    const plan = await monthlyPlan("Suite");
    const { subscription_id: id } = await subscribe(plan.product.id, "kunde@example.de", { locale: "de-DE" });
    ctx.clock.set(new Date("2027-11-03T09:00:00.000Z"));
    await sweep();
    expect((await patch(id, { cancel_at_period_end: true })).statusCode).toBe(200);
    const mails = await mailsTo("kunde@example.de");
    // Written at one instant of the test clock and sent side by side: compared as a set.
    expect(mails.map((mail) => mail.subject).sort()).toEqual([
      "Ihr Abonnement Suite",
      "Ihr Abonnement Suite wurde verlängert",
      "Kündigung Ihres Abonnements Suite",
    ]);
    for (const mail of mails) {
      expect(String(mail.html)).toContain('<html lang="de">');
      expect(mail.text).toContain("Zum Kundenportal");
    }
    const bySubject = (subject: string) => mails.find((mail) => mail.subject === subject)!;
    expect(bySubject("Ihr Abonnement Suite wurde verlängert").text).toContain(usd("de-DE", 2400));
    expect(bySubject("Kündigung Ihres Abonnements Suite").text).toContain(
      `endet am ${new Intl.DateTimeFormat("de-DE", { dateStyle: "long", timeZone: "UTC" }).format(new Date("2027-12-03T09:00:00.000Z"))}`,
    );
    expect(bySubject("Kündigung Ihres Abonnements Suite").text).toContain(usd("de-DE", 2000));
    expect((await emailsTo("kunde@example.de")).every((row) => row.locale === "de-DE")).toBe(true);
  });
});

describe("subscription notices", () => {
  it("tells a cancel, an uncancel and a cancel again (one email each), then the end at the period's close once", async () => {
    ctx.clock.set(new Date("2028-01-10T09:00:00.000Z"));
    const plan = await monthlyPlan(HOSTILE);
    const { subscription_id: id } = await subscribe(plan.product.id, "leaving@example.com");
    expect((await patch(id, { cancel_at_period_end: true })).statusCode).toBe(200);
    later(60_000);
    expect((await patch(id, { cancel_at_period_end: false })).statusCode).toBe(200);
    later(60_000);
    expect((await patch(id, { cancel_at_period_end: true })).statusCode).toBe(200);
    // Asked again: refused, nothing more written.
    expect((await patch(id, { cancel_at_period_end: true })).statusCode).toBe(403);
    ctx.clock.set(new Date("2028-02-10T09:00:00.000Z"));
    await sweep();
    await sweep();

    const mails = await mailsTo("leaving@example.com");
    // The confirmation and the first cancel were written at one instant of the test clock and sent
    // side by side: the first two in either order.
    expect(
      mails
        .map((mail) => mail.subject)
        .slice(0, 2)
        .sort(),
    ).toEqual([`Your ${HOSTILE} subscription`, `Your ${HOSTILE} subscription cancellation`]);
    expect(mails.map((mail) => mail.subject).slice(2)).toEqual([
      `Your ${HOSTILE} subscription is uncanceled`,
      `Your ${HOSTILE} subscription cancellation`,
      `Your ${HOSTILE} subscription has ended`,
    ]);
    for (const mail of mails.filter((sent) => sent.subject !== `Your ${HOSTILE} subscription`)) {
      expectCustomerEmail(mail, HOSTILE);
      // A notice, unlike a receipt, can be left.
      expect(hasListUnsubscribe(mail)).toBe(true);
    }
    const firstCancel = mails.slice(0, 2).find((mail) => mail.subject === `Your ${HOSTILE} subscription cancellation`)!;
    expect(firstCancel.text).toContain("ends on February 10, 2028");
    expect(firstCancel.text).toContain("$20.00 per period");
    expect(mails[2]!.text).toContain("renews on February 10, 2028 at $20.00 per period");
    expect(mails[4]!.text).toContain("ended on February 10, 2028");
    const keys = (await emailsTo("leaving@example.com")).map((row) => row.dedupe_key);
    expect(keys.filter((key) => key.startsWith("subscription_cancellation:"))).toEqual([
      `subscription_cancellation:${id}:2028-01-10T09:00:00.000Z`,
      `subscription_cancellation:${id}:2028-01-10T09:02:00.000Z`,
    ]);
    expect(keys.filter((key) => key.startsWith("subscription_revoked:"))).toEqual([`subscription_revoked:${id}`]);
    // The end replayed: nothing more.
    const ended = await subscriptionRow(id);
    await ctx.deps.db.transaction().execute((trx) => writeSubscriptionNotice(trx, ctx.deps, ended, "subscription_revoked", ctx.deps.now()));
    expect(await emailsTo("leaving@example.com")).toHaveLength(5);
    // The button leads to the organization's portal, which asks for a sign-in.
    const page = await ctx.request({ method: "GET", url: new URL(portal).pathname });
    expect(page.body).toContain(org.name.replace("&", "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
  });

  it("tells a customer's own cancel from the portal", async () => {
    ctx.clock.set(new Date("2028-02-20T09:00:00.000Z"));
    const plan = await monthlyPlan("Portal");
    const { subscription_id: id, customer_id: customerId } = await subscribe(plan.product.id, "self@example.com");
    const session = await createCustomerSessionToken(ctx.deps, customerId);
    const canceled = await ctx.request({ method: "DELETE", url: `/v1/customer-portal/subscriptions/${id}`, token: session });
    expect(canceled.statusCode, canceled.body).toBe(200);
    const mails = await mailsTo("self@example.com");
    // Written at one instant of the test clock and sent side by side: compared as a set.
    expect(mails.map((mail) => mail.subject).sort()).toEqual(["Your Portal subscription", "Your Portal subscription cancellation"]);
    for (const mail of mails) expect(mail.text).not.toContain(session);
  });

  it("tells a revoke with the end alone (no cancellation), and the end of dunning once", async () => {
    ctx.clock.set(new Date("2028-03-01T09:00:00.000Z"));
    const plan = await monthlyPlan("Revoked");
    const { subscription_id: revoked } = await subscribe(plan.product.id, "revoked@example.com");
    const deleted = await ctx.request({ method: "DELETE", url: `/v1/subscriptions/${revoked}`, token: subscriptionToken });
    expect(deleted.statusCode).toBe(200);
    expect((await ctx.request({ method: "DELETE", url: `/v1/subscriptions/${revoked}`, token: subscriptionToken })).statusCode).toBe(403);
    expect((await emailsTo("revoked@example.com")).map((row) => row.template)).toEqual([
      "subscription_confirmation",
      "subscription_revoked",
    ]);

    const t0 = new Date("2028-04-01T09:00:00.000Z");
    const { subscription_id: declined } = await subscribe(plan.product.id, "declined@example.com", {}, "tok_chargeCustomerFail");
    for (const day of [0, 2, 7, 14, 21, 21]) {
      ctx.clock.set(new Date(t0.getTime() + day * DAY));
      await sweep();
    }
    expect((await subscriptionRow(declined)).status).toBe("canceled");
    const mails = await mailsTo("declined@example.com");
    expect(mails.map((mail) => mail.subject)).toEqual([
      "Your Revoked subscription",
      "Your Revoked payment failed",
      "Your Revoked subscription has ended",
    ]);
  });

  it("writes nothing a switched-off organization does not send, and the rest as usual", async () => {
    const quiet = await createOrganization(ctx.deps, "Quiet Shop");
    await registerForTax(ctx.deps, quiet.id);
    await ctx.deps.db
      .updateTable("organizations")
      .set({
        customer_email_settings: JSON.stringify({
          subscription_confirmation: false,
          subscription_cycled: false,
          subscription_cancellation: false,
          subscription_uncanceled: false,
        }),
      })
      .where("id", "=", quiet.id)
      .execute();
    const token = await createOrganizationToken(ctx.deps, quiet.id, ["checkouts:write"]);
    const writer = await createOrganizationToken(ctx.deps, quiet.id, ["subscriptions:write"]);
    ctx.clock.set(new Date("2028-05-01T09:00:00.000Z"));
    const plan = await createProduct(ctx.deps, quiet.id, {
      product: { name: "Hushed", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
    });
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "hushed@example.com" } });
    ctx.clock.set(new Date("2028-06-01T09:00:00.000Z"));
    await sweep();
    const change = (payload: Record<string, unknown>) =>
      ctx.request({ method: "PATCH", url: `/v1/subscriptions/${checkout.subscription_id}`, token: writer, payload });
    expect((await change({ cancel_at_period_end: true })).statusCode).toBe(200);
    later(60_000);
    expect((await change({ cancel_at_period_end: false })).statusCode).toBe(200);
    expect((await ctx.request({ method: "DELETE", url: `/v1/subscriptions/${checkout.subscription_id}`, token: writer })).statusCode).toBe(
      200,
    );
    expect((await emailsTo("hushed@example.com")).map((row) => row.template)).toEqual(["subscription_revoked"]);

    // A refund follows the switch of the refunded order's own email: the subscription's first order's, off.
    const [first] = await ctx.deps.db
      .selectFrom("orders")
      .select("id")
      .where("subscription_id", "=", checkout.subscription_id)
      .orderBy("created_at")
      .execute();
    const refunder = await createOrganizationToken(ctx.deps, quiet.id, ["refunds:write"]);
    await createRefund(ctx, refunder, first!.id, 100);
    expect((await emailsTo("hushed@example.com")).map((row) => row.template)).toEqual(["subscription_revoked"]);
  });
});

describe("refund notice", () => {
  it("tells the amount given back and the order, then a link to the credit note's PDF once the order is invoiced, one per refund", async () => {
    ctx.clock.set(new Date("2028-07-01T09:00:00.000Z"));
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 2500, email: "refunded@example.com" });
    const first = await createRefund(ctx, refundToken, order.id, 1000);
    expect((await ctx.request({ method: "POST", url: `/v1/orders/${order.id}/invoice`, token: invoiceToken })).statusCode).toBe(202);
    const second = await createRefund(ctx, refundToken, order.id, 500);

    const product = order.description;
    // The send jobs run side by side: which refund's email arrives first is not fixed.
    const mails = (await mailsTo("refunded@example.com")).filter((mail) => mail.subject === `Your refund for ${product}`);
    expect(mails).toHaveLength(2);
    const about = (amount: string) => mails.find((mail) => mail.text?.includes(`refunded ${amount} of your`));
    const [note] = await ctx.deps.db.selectFrom("credit_notes").selectAll().where("refund_id", "=", second.id).execute();
    const noteLink = about("$6.00")!.text?.match(/View your credit note:\n(\S+)/)?.[1];
    expect(noteLink).toMatch(new RegExp(`^${ctx.deps.config.publicBaseUrl}/documents/credit-notes/${note!.id}\\?expires=\\d+&signature=`));
    const plain = expectCustomerEmail(about("$12.00")!, product);
    const credited = expectCustomerEmail(about("$6.00")!, product, noteLink);
    // 10.00 and 5.00 plus their 20% VAT share.
    expect(plain.text).toContain("refunded $12.00 of your");
    expect(plain.text).toContain(`Receipt number: ${order.receipt_number}`);
    expect(credited.text).toContain("refunded $6.00 of your");
    expect(credited.text).toContain(`Invoice number: ${order.invoice_number}`);
    expect(credited.text).toContain(`Credit note number: ${note!.number}`);
    expect(credited.text).toContain(`View your credit note:\n${noteLink}`);
    expect(credited.html).not.toContain(`href="${portal}"`);
    // The link works for whoever holds the email (no session, no token): the PDF once rendered.
    const follow = (url: string) => ctx.request({ method: "GET", url: url.replace(ctx.deps.config.publicBaseUrl, "") });
    const preparing = await follow(noteLink!);
    expect(preparing.statusCode).toBe(202);
    expect(preparing.body).toContain("Your credit note is being prepared");
    await runDocumentJobs(ctx);
    const ready = await follow(noteLink!);
    expect(ready.statusCode).toBe(303);
    const pdf = await follow(String(ready.headers["location"]));
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers["content-type"]).toContain("application/pdf");
    expect(await pdfText(pdf.rawPayload)).toContain(note!.number);
    // Both refunds happened at the same instant of the test clock: compared as a set.
    const keys = (await emailsTo("refunded@example.com")).filter((row) => row.template === "refund_issued").map((row) => row.dedupe_key);
    expect(keys.sort()).toEqual([`refund_issued:${first.id}`, `refund_issued:${second.id}`].sort());

    // The emailed link altered, or followed after its year: the "not valid" page, no PDF.
    const altered = new URL(noteLink!);
    const signature = altered.searchParams.get("signature")!;
    altered.searchParams.set("signature", `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`);
    const expectRefused = async (url: string) => {
      const refused = await follow(url);
      expect(refused.statusCode).toBe(404);
      expect(refused.headers["content-type"]).toContain("text/html");
      expect(refused.body).toContain("This link is not valid or has expired.");
    };
    await expectRefused(altered.toString());
    // A minute before its year is out the link still works; two minutes later it no longer does.
    later(DOCUMENT_LINK_TTL_MS - 60_000);
    expect((await follow(noteLink!)).statusCode).toBe(303);
    later(120_000);
    await expectRefused(noteLink!);
  });
});
