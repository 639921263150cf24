import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { crontab } from "../../../src/tasks.ts";
import { addInterval } from "../../../src/values/calendar.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct, createSubscription, registerForTax } from "../../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";
import { runEmailJobs } from "./email-helpers.ts";

let smtp: TestSmtpServer;
let ctx: TestContext;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
});
afterAll(() => stopMailingContext({ ctx, smtp }));

const DAY = 24 * 60 * 60 * 1000;
/** The hourly task's scan, as the worker runs it. */
const scan = () => ctx.services.subscriptionReminders();
const HOSTILE_PRODUCT = "Pro <b>Yearly</b> & co";

/** A sandbox organization with a contact address and a hostile name, a token that buys and moves its clock, and its plans. */
async function sandboxSeller() {
  const organization = await createOrganization(ctx.deps, `Ada <i>&</i> Co ${Date.now()}`);
  await ctx.deps.db.updateTable("organizations").set({ email: "seller@adaco.example" }).where("id", "=", organization.id).execute();
  const token = await createOrganizationToken(ctx.deps, organization.id, ["checkouts:write", "subscriptions:write"]);
  const plan = (name: string, interval: "month" | "year", count: number, options: { price?: number; trialDays?: number } = {}) =>
    createProduct(ctx.deps, organization.id, {
      product: {
        name,
        recurring_interval: interval,
        recurring_interval_count: count,
        ...(options.trialDays ? { trial_interval: "day" as const, trial_interval_count: options.trialDays } : {}),
      },
      prices: options.price === 0 ? [{ amount_type: "free" }] : [{ amount_type: "fixed", price_amount: options.price ?? 12_000 }],
    });
  const buy = async (productId: string, email: string, locale?: string) => {
    const { checkout } = await buyThroughCheckout(ctx, token, productId, {
      buyer: { customer_email: email },
      ...(locale ? { checkout: { locale } } : {}),
    });
    return ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", checkout.subscription_id).executeTakeFirstOrThrow();
  };
  return { organization, token, plan, buy };
}

/** Moves the organization's test clock forward, renewing what comes due on the way. */
async function advance(token: string, seconds: number) {
  const response = await ctx.request({ method: "POST", url: "/v1/test-clock/advance", token, payload: { seconds } });
  expect(response.statusCode, response.body).toBe(200);
}

const remindersOf = (subscriptionId: string) =>
  ctx.deps.db
    .selectFrom("emails")
    .selectAll()
    .where("dedupe_key", "like", `subscription\\_%reminder:${subscriptionId}:%`)
    .orderBy("created_at")
    .execute();

/** The reminders `address` received, in order: the same subscriptions' receipts and notices are not counted here. */
async function remindersTo(address: string) {
  const reminders = await ctx.deps.db
    .selectFrom("emails")
    .select("message_id")
    .where("recipient", "=", address)
    .where("template", "in", ["subscription_renewal_reminder", "subscription_trial_conversion_reminder"])
    .execute();
  const ids = new Set(reminders.map((row) => row.message_id));
  return smtp.received.filter((mail) => ids.has(mail.messageId ?? ""));
}

describe("subscription renewal reminders", () => {
  it("runs hourly at minute 30, as the hosted service scans", () => {
    expect(crontab.split("\n")).toContain(`30 * * * * ${TaskName.subscriptionReminders} ?max=1`);
  });

  it("reminds each long-cycle period once, a week ahead, over two years of renewals; never a monthly, canceled or free plan", async () => {
    const seller = await sandboxSeller();
    // The buyers are in France: the reminder's amount carries the VAT the renewal will charge.
    await registerForTax(ctx.deps, seller.organization.id);
    const yearly = await seller.buy((await seller.plan(HOSTILE_PRODUCT, "year", 1)).product.id, "year@example.com");
    const halfYearly = await seller.buy(
      (await seller.plan("Semestre", "month", 6, { price: 6_000 })).product.id,
      "zoe@example.fr",
      "fr-FR",
    );
    const monthly = await seller.buy((await seller.plan("Monthly", "month", 1)).product.id, "month@example.com");
    const canceled = await seller.buy((await seller.plan("Canceled", "year", 1)).product.id, "gone@example.com");
    const cancel = await ctx.request({
      method: "PATCH",
      url: `/v1/subscriptions/${canceled.id}`,
      token: seller.token,
      payload: { cancel_at_period_end: true },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const free = await createSubscription(ctx.deps, seller.organization.id, {
      product: await seller.plan("Free", "year", 1, { price: 0 }),
    });

    // Two years and ten days in five-day steps (the window is seven), scanning twice after each step.
    for (let day = 0; day < 2 * 366 + 10; day += 5) {
      await advance(seller.token, 5 * 24 * 3600);
      await scan();
      expect(await scan()).toBe(0);
    }

    const periodEnds = (row: typeof yearly, months: number[]) =>
      months.map((count) => addInterval(row.current_period_start, "month", count, row.anchor_day));
    const expectReminded = async (row: typeof yearly, ends: Date[]) => {
      const reminders = await remindersOf(row.id);
      expect(reminders.map((email) => email.dedupe_key)).toEqual(
        ends.map((end) => `subscription_renewal_reminder:${row.id}:${end.toISOString().slice(0, 10)}`),
      );
      reminders.forEach((email, index) => {
        // Written at the organization's time, within the week before the charge.
        const end = ends[index]!.getTime();
        expect(email.created_at.getTime()).toBeGreaterThanOrEqual(end - 7 * DAY);
        expect(email.created_at.getTime()).toBeLessThanOrEqual(end);
      });
    };
    await expectReminded(yearly, periodEnds(yearly, [12, 24]));
    await expectReminded(halfYearly, periodEnds(halfYearly, [6, 12, 18, 24]));
    for (const quiet of [monthly, canceled, free]) expect(await remindersOf(quiet.id)).toEqual([]);
    // The renewals did run: the monthly plan renewed two dozen times without a reminder.
    const renewed = await ctx.deps.db.selectFrom("orders").select("id").where("subscription_id", "=", monthly.id).execute();
    expect(renewed.length).toBeGreaterThanOrEqual(24);

    await runEmailJobs(ctx);
    const english = await remindersTo("year@example.com");
    expect(english).toHaveLength(2);
    const mail = english[0]!;
    expect(mail.subject).toBe(`Your ${HOSTILE_PRODUCT} subscription renews soon`);
    expect(mail.from?.value).toEqual([{ address: "mail@shop.example", name: seller.organization.name }]);
    expect(mail.replyTo?.value).toEqual([{ address: "seller@adaco.example", name: "" }]);
    // A notice may be left: List-Unsubscribe goes to the seller.
    expect(mail.headers.get("list")).toMatchObject({ unsubscribe: { mail: "seller@adaco.example?subject=unsubscribe" } });
    const html = String(mail.html);
    for (const part of [html, mail.text!]) {
      expect(part).toContain("$144.00 will be charged");
      expect(part).toContain(new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(periodEnds(yearly, [12])[0]));
      expect(part).not.toMatch(/polar_(cst|mst|oat|pat)_/);
      expect(part).not.toContain(smtp.password);
    }
    expect(html).toContain("Pro &lt;b&gt;Yearly&lt;/b&gt; &amp; co");
    expect(html).toContain("Ada &lt;i&gt;&amp;&lt;/i&gt; Co");
    expect(html).not.toMatch(/<b>|<i>/);
    expect(html).toContain(`href="${ctx.deps.config.publicBaseUrl}/${seller.organization.slug}/portal"`);

    const french = await remindersTo("zoe@example.fr");
    expect(french).toHaveLength(4);
    expect(french[0]!.subject).toBe("Votre abonnement Semestre sera bientôt renouvelé");
    const amount = new Intl.NumberFormat("fr-FR", { style: "currency", currency: "USD" }).format(72);
    expect(french[0]!.text).toContain(`${amount} seront prélevés`);
    expect(String(french[0]!.html)).toContain('<html lang="fr">');
    // Two years of hourly scans and renewals: 10 s alone, past 30 s beside a second full suite.
  }, 120_000);

  it("writes nothing while the organization's switch is off, and the next scan writes it once switched on", async () => {
    const seller = await sandboxSeller();
    const yearly = await seller.buy((await seller.plan("Quiet", "year", 1)).product.id, "quiet@example.com");
    const setSwitch = (on: boolean) =>
      ctx.deps.db
        .updateTable("organizations")
        .set({ customer_email_settings: JSON.stringify({ subscription_renewal_reminder: on }) })
        .where("id", "=", seller.organization.id)
        .execute();
    await setSwitch(false);
    await advance(seller.token, (yearly.current_period_end.getTime() - ctx.clock.now().getTime()) / 1000 - 3 * 24 * 3600);
    expect(await scan()).toBe(0);
    expect(await remindersOf(yearly.id)).toEqual([]);
    await setSwitch(true);
    expect(await scan()).toBe(1);
    expect(await scan()).toBe(0);
    expect(await remindersOf(yearly.id)).toHaveLength(1);
  });
});

describe("trial conversion reminders", () => {
  it("reminds a trial of 3 days or more within 3 days of its end, a shorter one within a day, one under a day never", async () => {
    const seller = await sandboxSeller();
    const long = await seller.buy(
      (await seller.plan("Long <trial>", "month", 1, { price: 1_500, trialDays: 14 })).product.id,
      "long@example.com",
      "de-DE",
    );
    const short = await seller.buy(
      (await seller.plan("Short", "month", 1, { price: 1_500, trialDays: 2 })).product.id,
      "short@example.com",
    );
    const brief = await createSubscription(ctx.deps, seller.organization.id, {
      product: await seller.plan("Brief", "month", 1, { price: 1_500 }),
      trialEnd: new Date(ctx.clock.now().getTime() + 12 * 60 * 60 * 1000),
    });
    expect([long.status, short.status, brief.status]).toEqual(["trialing", "trialing", "trialing"]);
    const key = (row: typeof long) => `subscription_trial_conversion_reminder:${row.id}:${row.trial_end!.toISOString().slice(0, 10)}`;
    const keysOf = async (row: typeof long) => (await remindersOf(row.id)).map((email) => email.dedupe_key);

    // Half a day in: the brief trial is within a day of its end, but too short to be reminded.
    await advance(seller.token, 12 * 3600 - 60);
    await scan();
    for (const row of [long, short, brief]) expect(await keysOf(row)).toEqual([]);
    // A day and an hour in: the two-day trial ends within a day.
    await advance(seller.token, 13 * 3600);
    await scan();
    expect(await keysOf(short)).toEqual([key(short)]);
    expect(await keysOf(long)).toEqual([]);
    // Eleven days and an hour in: the fourteen-day trial ends within three days; rescans write nothing more.
    await advance(seller.token, 10 * 24 * 3600);
    await scan();
    expect(await scan()).toBe(0);
    for (const [row, keys] of [
      [long, [key(long)]],
      [short, [key(short)]],
      [brief, []],
    ] as const)
      expect(await keysOf(row)).toEqual(keys);

    await runEmailJobs(ctx);
    const [mail] = await remindersTo("long@example.com");
    expect(mail?.subject).toBe("Ihre Testphase für Long <trial> endet bald");
    const amount = new Intl.NumberFormat("de-DE", { style: "currency", currency: "USD" }).format(15);
    expect(mail!.text).toContain(`${amount} werden von Ihrer gespeicherten Zahlungsmethode abgebucht.`);
    expect(String(mail!.html)).toContain("Long &lt;trial&gt;");
    expect(String(mail!.html)).not.toContain("<trial>");
    expect((await remindersTo("short@example.com"))[0]?.subject).toBe("Your Short trial is ending soon");
  });
});
