import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issuePortalSignInLink } from "../../../src/modules/customers/portal-sign-ins.steps.ts";
import { addInterval } from "../../../src/values/calendar.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken, createProduct, registerForTax } from "../../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { mailsTo } from "../customer-portal/portal-sign-in-helpers.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { runEmailJobs } from "./email-helpers.ts";

/** The failed-payment email (`subscription_past_due`) and its single-use link into the portal's payment method. */
let smtp: TestSmtpServer;
let ctx: TestContext;
let org: { id: string; name: string; slug: string };
let token: string;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
  org = await createOrganization(ctx.deps, `Ada & <i>Co</i> ${Date.now()}`);
  await ctx.deps.db.updateTable("organizations").set({ email: "support@adaco.example" }).where("id", "=", org.id).execute();
  await registerForTax(ctx.deps, org.id);
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
});
afterAll(() => stopMailingContext({ ctx, smtp }));

const t0 = new Date("2027-05-10T10:00:00.000Z");
const pastDueEmails = () => ctx.deps.db.selectFrom("emails").selectAll().where("template", "=", "subscription_past_due").execute();
const linkRows = (customerId: string) =>
  ctx.deps.db.selectFrom("portal_sign_ins").selectAll().where("customer_id", "=", customerId).where("kind", "=", "link").execute();

/** A monthly plan bought with a card that the renewal's charge declines; the renewal swept at `t0`. */
async function declinedRenewal(name: string, email: string, locale: string | null = null) {
  ctx.clock.set(addInterval(t0, "month", -1));
  const plan = await createProduct(ctx.deps, org.id, {
    product: { name, recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 2000 }],
  });
  const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, {
    card: "tok_chargeCustomerFail",
    buyer: { customer_email: email },
  });
  await ctx.deps.db.updateTable("customers").set({ locale }).where("id", "=", checkout.customer_id).execute();
  ctx.clock.set(t0);
  await ctx.services.subscriptionRenewals.sweep();
  return checkout;
}

/** A link's path and query, as the app serves them. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};
const open = (url: string) => ctx.request({ method: "GET", url: pathOf(url) });

describe("subscription past due email", () => {
  it("tells the customer once, with a link that signs in once to the payment method and no session token", async () => {
    const checkout = await declinedRenewal("Pro <b>Plan</b>", "late@example.com");
    await runEmailJobs(ctx);
    const [mail, ...more] = mailsTo(smtp, "late@example.com").filter((m) => m.subject?.includes("payment failed"));
    expect(more).toEqual([]);
    expect(mail!.subject).toBe("Your Pro <b>Plan</b> payment failed");
    expect(mail!.replyTo?.value).toEqual([{ address: "support@adaco.example", name: "" }]);
    // A notice: one may leave it (mailparser files List-* headers under `list`).
    expect(mail!.headers.has("list")).toBe(true);
    const html = String(mail!.html);
    expect(html).toContain("Pro &lt;b&gt;Plan&lt;/b&gt;");
    expect(html).not.toContain("<b>Plan</b>");
    expect(html).toContain("Ada &amp; &lt;i&gt;Co&lt;/i&gt;");
    const link = /^(https:\/\/checkout\.test\/\S+)$/m.exec(mail!.text!)?.[1];
    expect(link).toMatch(new RegExp(`^https://checkout\\.test/${org.slug}/portal\\?sign_in=psi_`));
    for (const part of [html, mail!.text!]) {
      expect(part).toContain("$24.00");
      expect(part).toContain("Update your payment method");
      expect(part).not.toMatch(/polar_(cst|mst|oat|pat)_/);
    }
    expect(html).toContain(link!.replace(/&/g, "&amp;"));
    const [row] = await linkRows(checkout.customer_id);
    expect(row!.expires_at.getTime() - row!.created_at.getTime()).toBe(24 * 60 * 60 * 1000);
    expect(JSON.stringify(row)).not.toContain(new URL(link!).searchParams.get("sign_in"));

    const first = await open(link!);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(`/${org.slug}/portal#payment-method`);
    expect(first.headers["referrer-policy"]).toBe("no-referrer");
    const cookie = String(first.headers["set-cookie"]).split(";")[0]!;
    expect(cookie).toMatch(/^portal_session=polar_cst_/);
    const portal = await ctx.request({ method: "GET", url: `/${org.slug}/portal`, headers: { cookie } });
    expect(portal.statusCode).toBe(200);
    expect(portal.body).toContain("Signed in as late@example.com");

    const second = await open(link!);
    expect(second.statusCode).toBe(401);
    expect(second.headers["set-cookie"]).toBeUndefined();
    expect(second.body).toContain("This sign-in link has expired or was already used.");

    // The dunning retries that follow do not tell the customer again.
    ctx.clock.set(new Date(t0.getTime() + 2 * 24 * 60 * 60 * 1000 + 1000));
    await ctx.services.subscriptionRenewals.sweep();
    expect((await pastDueEmails()).filter((email) => email.recipient === "late@example.com")).toHaveLength(1);
  });

  it("writes in the customer's language", async () => {
    await declinedRenewal("Pro DE", "spaet@example.com", "de-DE");
    const [row] = (await pastDueEmails()).filter((email) => email.recipient === "spaet@example.com");
    expect(row!.subject).toBe("Ihre Zahlung für Pro DE ist fehlgeschlagen");
    expect(row!.text).toContain("Zahlungsmethode aktualisieren");
    expect(row!.html).toContain('<html lang="de">');
  });

  it("writes nothing, and issues no link, when the organization switched the email off", async () => {
    await ctx.deps.db
      .updateTable("organizations")
      .set({ customer_email_settings: JSON.stringify({ subscription_past_due: false }) })
      .where("id", "=", org.id)
      .execute();
    try {
      const checkout = await declinedRenewal("Silent", "quiet@example.com");
      expect((await pastDueEmails()).filter((email) => email.recipient === "quiet@example.com")).toEqual([]);
      expect(await linkRows(checkout.customer_id)).toEqual([]);
    } finally {
      await ctx.deps.db
        .updateTable("organizations")
        .set({ customer_email_settings: JSON.stringify({}) })
        .where("id", "=", org.id)
        .execute();
    }
  });
});

describe("portal sign-in links", () => {
  it("refuses an expired link, a tampered one, and another organization's", async () => {
    const customer = await createCustomer(ctx.deps, org.id, { email: "links@example.com" });
    const organization = { id: org.id, slug: org.slug };
    const issue = () => issuePortalSignInLink(ctx.deps.db, ctx.deps, { organization, customer, path: "", now: ctx.deps.now() });
    const expired = await issue();
    ctx.clock.advance(24 * 60 * 60 * 1000 + 1000);
    expect((await open(expired)).statusCode).toBe(401);

    const other = await createOrganization(ctx.deps);
    const fresh = await issue();
    const token = new URL(fresh).searchParams.get("sign_in")!;
    expect((await ctx.request({ method: "GET", url: `/${other.slug}/portal?sign_in=${token}` })).statusCode).toBe(401);
    expect((await ctx.request({ method: "GET", url: `/${org.slug}/portal?sign_in=${token.slice(0, -1)}x` })).statusCode).toBe(401);
    expect((await ctx.request({ method: "GET", url: `/${org.slug}/portal?sign_in=${"x".repeat(5000)}` })).statusCode).toBe(401);
    // Still usable after the refusals: none of them spent it.
    const used = await open(fresh);
    expect(used.statusCode).toBe(303);
    expect(used.headers.location).toBe(`/${org.slug}/portal`);
  });
});
