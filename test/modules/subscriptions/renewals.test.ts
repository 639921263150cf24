import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Deps } from "../../../src/context.ts";
import { connect } from "../../../src/db/connection.ts";
import { addInterval } from "../../../src/values/calendar.ts";
import { buildServices } from "../../../src/services.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createDiscount,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
  registerForTax,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyThroughCheckout, eventTypesOf, giveSubscriptionWorkingCard } from "./subscription-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string };
let token: string;
let readToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [token, readToken],
  } = await openOrganizationContext(["checkouts:write"], ["subscriptions:read", "orders:read"]));
  await registerForTax(ctx.deps, org.id);
});
afterAll(() => ctx.close());

const DAY = 24 * 60 * 60 * 1000;
const sweep = () => ctx.services.subscriptionRenewals.sweep();
const subscriptionRow = (id: string) => ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const ordersOf = (subscriptionId: string) =>
  ctx.deps.db
    .selectFrom("orders")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .orderBy("created_at")
    .orderBy("invoice_number")
    .execute();
const monthlyPlan = (name: string, extra: Record<string, unknown> = {}, amount = 2000) =>
  createProduct(ctx.deps, org.id, {
    product: { name, recurring_interval: "month", recurring_interval_count: 1, ...extra },
    prices: [{ amount_type: "fixed", price_amount: amount }],
    benefits: [{ type: "license_keys", description: `${name} key` }],
  });
const licenseKeyStatus = async (customerId: string) =>
  (await ctx.deps.db.selectFrom("license_keys").select("status").where("customer_id", "=", customerId).executeTakeFirstOrThrow()).status;

describe("renewals", () => {
  it("renews twelve times from 31 January, on the anchor day, one paid subscription_cycle order a period, with receipts", async () => {
    ctx.clock.set(new Date("2027-01-31T10:00:00.000Z"));
    const plan = await monthlyPlan("Anchored");
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "anchor@example.com" } });
    const id = checkout.subscription_id;
    const ends: string[] = [];
    for (let month = 0; month < 12; month += 1) {
      const before = await subscriptionRow(id);
      // Not due a millisecond early.
      ctx.clock.set(new Date(before.current_period_end.getTime() - 1));
      await sweep();
      expect((await subscriptionRow(id)).current_period_end).toEqual(before.current_period_end);
      ctx.clock.set(before.current_period_end);
      await sweep();
      const after = await subscriptionRow(id);
      expect(after.current_period_start).toEqual(before.current_period_end);
      ends.push(after.current_period_end.toISOString().slice(0, 10));
    }
    expect(ends).toEqual([
      "2027-03-31",
      "2027-04-30",
      "2027-05-31",
      "2027-06-30",
      "2027-07-31",
      "2027-08-31",
      "2027-09-30",
      "2027-10-31",
      "2027-11-30",
      "2027-12-31",
      "2028-01-31",
      "2028-02-29",
    ]);
    const orders = await ordersOf(id);
    expect(orders.map((order) => order.billing_reason)).toEqual(["subscription_create", ...Array(12).fill("subscription_cycle")]);
    // France: 20% on top of the 2000 price, every period.
    for (const order of orders.slice(1)) {
      expect(order).toMatchObject({
        status: "paid",
        subtotal_amount: 2000,
        tax_amount: 400,
        tax_rate_basis_points: 2000,
        tax_reverse_charge: false,
        total_amount: 2400,
        next_payment_attempt_at: null,
      });
      expect(order.receipt_number).toMatch(/^RCPT-/);
    }
    const invoiceSerials = orders.map((order) => Number(order.invoice_number!.slice(-4)));
    expect(invoiceSerials).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    const payments = await ctx.deps.db.selectFrom("payments").selectAll().where("customer_id", "=", checkout.customer_id).execute();
    expect(payments.filter((payment) => payment.trigger === "subscription_cycle" && payment.status === "succeeded")).toHaveLength(12);

    const cycledOrder = orders[1]!;
    expect(await eventTypesOf(ctx, cycledOrder.id)).toEqual(["order.created", "order.updated", "order.paid"]);
    const read = await ctx.request({ method: "GET", url: `/v1/orders/${cycledOrder.id}`, token: readToken });
    expect(read.statusCode).toBe(200);
    expectReferenceResponse("orders:get", 200, read.json());
    expect(read.json()).toMatchObject({ billing_reason: "subscription_cycle", subscription: { id, status: "active" } });
    const events = await eventTypesOf(ctx, id);
    expect(events.slice(0, 5)).toEqual([
      "subscription.created",
      "subscription.active",
      "subscription.updated",
      "subscription.cycled",
      "subscription.updated",
    ]);
    expect(events.filter((type) => type === "subscription.cycled")).toHaveLength(12);
  });

  it("catches up a server that was down for three periods: one order per period, in order", async () => {
    ctx.clock.set(new Date("2027-03-15T08:00:00.000Z"));
    const plan = await monthlyPlan("Catch-up");
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "down@example.com" } });
    ctx.clock.set(new Date("2027-06-20T00:00:00.000Z"));
    await sweep();
    const row = await subscriptionRow(checkout.subscription_id);
    expect(row.current_period_start.toISOString()).toBe("2027-06-15T08:00:00.000Z");
    expect(row.current_period_end.toISOString()).toBe("2027-07-15T08:00:00.000Z");
    const orders = await ordersOf(checkout.subscription_id);
    expect(orders.map((order) => [order.billing_reason, order.status])).toEqual([
      ["subscription_create", "paid"],
      ["subscription_cycle", "paid"],
      ["subscription_cycle", "paid"],
      ["subscription_cycle", "paid"],
    ]);
  });

  it("applies a discount for its duration: repeating 3 months bills three discounted periods, once only the first", async () => {
    ctx.clock.set(new Date("2027-02-01T12:00:00.000Z"));
    const plan = await monthlyPlan("Discounted", {}, 1000);
    const repeating = await createDiscount(ctx.deps, org.id, { basis_points: 2500, duration: "repeating", duration_in_months: 3 });
    const once = await createDiscount(ctx.deps, org.id, { basis_points: 5000, duration: "once" });
    const three = await buyThroughCheckout(ctx, token, plan.product.id, {
      checkout: { discount_id: repeating.id },
      buyer: { customer_email: "three@example.com" },
    });
    const first = await buyThroughCheckout(ctx, token, plan.product.id, {
      checkout: { discount_id: once.id },
      buyer: { customer_email: "once@example.com" },
    });
    for (let month = 1; month <= 4; month += 1) {
      ctx.clock.set(addInterval(new Date("2027-02-01T12:00:00.000Z"), "month", month));
      await sweep();
    }
    const discounts = async (id: string) => (await ordersOf(id)).map((order) => order.discount_amount);
    expect(await discounts(three.checkout.subscription_id)).toEqual([250, 250, 250, 0, 0]);
    expect(await discounts(first.checkout.subscription_id)).toEqual([500, 0, 0, 0, 0]);
    expect(await subscriptionRow(three.checkout.subscription_id)).toMatchObject({ discount_id: null, amount: 1000 });
  });

  it("converts a trial at its end with a charge, re-anchored to the trial's last day", async () => {
    ctx.clock.set(new Date("2027-01-20T09:00:00.000Z"));
    const plan = await monthlyPlan("Trialed", { trial_interval: "day", trial_interval_count: 11 });
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "trial@example.com" } });
    expect((await subscriptionRow(checkout.subscription_id)).status).toBe("trialing");
    ctx.clock.set(new Date("2027-01-31T09:00:00.000Z"));
    await sweep();
    const row = await subscriptionRow(checkout.subscription_id);
    expect(row).toMatchObject({ status: "active", anchor_day: 31 });
    expect(row.current_period_end.toISOString()).toBe("2027-02-28T09:00:00.000Z");
    const orders = await ordersOf(checkout.subscription_id);
    expect(orders.map((order) => [order.billing_reason, order.total_amount, order.status])).toEqual([
      ["subscription_create", 0, "paid"],
      ["subscription_cycle", 2400, "paid"],
    ]);
    // The conversion sends no `subscription.active` beyond the one of the start.
    expect((await eventTypesOf(ctx, checkout.subscription_id)).filter((type) => type === "subscription.active")).toHaveLength(1);
  });

  it("ends a subscription set to cancel at the period end: canceled, benefits revoked, no order", async () => {
    ctx.clock.set(new Date("2027-04-01T00:00:00.000Z"));
    const plan = await monthlyPlan("Ending");
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "leaving@example.com" } });
    await ctx.deps.db
      .updateTable("subscriptions")
      .set({ cancel_at_period_end: true, canceled_at: ctx.clock.now() })
      .where("id", "=", checkout.subscription_id)
      .execute();
    ctx.clock.set(new Date("2027-05-01T00:00:00.000Z"));
    await sweep();
    expect(await subscriptionRow(checkout.subscription_id)).toMatchObject({
      status: "canceled",
      ended_at: ctx.clock.now(),
      cancel_at_period_end: true,
    });
    expect(await ordersOf(checkout.subscription_id)).toHaveLength(1);
    expect(await licenseKeyStatus(checkout.customer_id)).toBe("revoked");
    expect((await eventTypesOf(ctx, checkout.subscription_id)).slice(-3)).toEqual([
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
    ]);
    await sweep();
    expect(await ordersOf(checkout.subscription_id)).toHaveLength(1);
  });
});

describe("failed renewals and dunning", () => {
  it("goes past due on a declined renewal, retries at +2, +7, +14 and +21 days, and is revoked at the fifth failure", async () => {
    const t0 = new Date("2027-05-10T10:00:00.000Z");
    ctx.clock.set(addInterval(t0, "month", -1));
    const plan = await monthlyPlan("Declining");
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, {
      card: "tok_chargeCustomerFail",
      buyer: { customer_email: "declines@example.com" },
    });
    expect(await licenseKeyStatus(checkout.customer_id)).toBe("granted");
    ctx.clock.set(t0);
    await sweep();
    const [, renewal] = await ordersOf(checkout.subscription_id);
    expect(renewal).toMatchObject({
      billing_reason: "subscription_cycle",
      status: "pending",
      next_payment_attempt_at: new Date(t0.getTime() + 2 * DAY),
    });
    expect(await subscriptionRow(checkout.subscription_id)).toMatchObject({ status: "past_due", past_due_at: t0 });
    expect(await licenseKeyStatus(checkout.customer_id)).toBe("revoked");
    expect((await eventTypesOf(ctx, checkout.subscription_id)).slice(-2)).toEqual(["subscription.updated", "subscription.past_due"]);
    const read = (await ctx.request({ method: "GET", url: `/v1/orders/${renewal!.id}`, token: readToken })).json();
    expect(read).toMatchObject({
      status: "pending",
      due_amount: 2400,
      next_payment_attempt_at: new Date(t0.getTime() + 2 * DAY).toISOString(),
    });

    for (const [day, next] of [
      [2, 7],
      [7, 14],
      [14, 21],
    ] as const) {
      ctx.clock.set(new Date(t0.getTime() + day * DAY - 1));
      await sweep();
      ctx.clock.set(new Date(t0.getTime() + day * DAY));
      await sweep();
      const order = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", renewal!.id).executeTakeFirstOrThrow();
      expect(order.next_payment_attempt_at, `after the retry of day ${day}`).toEqual(new Date(t0.getTime() + next * DAY));
    }
    ctx.clock.set(new Date(t0.getTime() + 21 * DAY));
    await sweep();
    expect(await subscriptionRow(checkout.subscription_id)).toMatchObject({ status: "canceled", ended_at: ctx.clock.now() });
    const voided = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", renewal!.id).executeTakeFirstOrThrow();
    expect(voided).toMatchObject({ status: "void", next_payment_attempt_at: null });
    const attempts = await ctx.deps.db
      .selectFrom("payments")
      .select(["trigger", "status"])
      .where("order_id", "=", renewal!.id)
      .orderBy("created_at")
      .execute();
    expect(attempts).toEqual([
      { trigger: "subscription_cycle", status: "failed" },
      ...Array(4).fill({ trigger: "retry_dunning", status: "failed" }),
    ]);
    expect((await eventTypesOf(ctx, checkout.subscription_id)).slice(-3)).toEqual([
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
    ]);
  });

  it("returns to active when a retry succeeds on a new method, benefits restored", async () => {
    const t0 = new Date("2027-08-03T10:00:00.000Z");
    ctx.clock.set(addInterval(t0, "month", -1));
    const plan = await monthlyPlan("Recovering");
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, {
      card: "tok_chargeCustomerFail",
      buyer: { customer_email: "recovers@example.com" },
    });
    ctx.clock.set(t0);
    await sweep();
    expect((await subscriptionRow(checkout.subscription_id)).status).toBe("past_due");
    // A working card saved straight into the table (recovery through the portal's routes: portal-payment-methods.test.ts).
    await giveSubscriptionWorkingCard(ctx, {
      organizationId: org.id,
      customerId: checkout.customer_id,
      subscriptionId: checkout.subscription_id,
    });
    ctx.clock.set(new Date(t0.getTime() + 2 * DAY));
    await sweep();
    expect(await subscriptionRow(checkout.subscription_id)).toMatchObject({ status: "active", past_due_at: null });
    expect(await licenseKeyStatus(checkout.customer_id)).toBe("granted");
    const [, renewal] = await ordersOf(checkout.subscription_id);
    expect(renewal).toMatchObject({ status: "paid", next_payment_attempt_at: null });
    expect((await eventTypesOf(ctx, checkout.subscription_id)).slice(-2)).toEqual(["subscription.updated", "subscription.active"]);
  });
});

describe("renewals racing", () => {
  it("renews each subscription once per period when two processes sweep at the same time", async () => {
    const organizationId = (await createOrganization(ctx.deps)).id;
    const writer = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write"]);
    ctx.clock.set(new Date("2027-09-01T00:00:00.000Z"));
    const plan = await createProduct(ctx.deps, organizationId, {
      product: { name: "Raced", recurring_interval: "month", recurring_interval_count: 1 },
    });
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const { checkout } = await buyThroughCheckout(ctx, writer, plan.product.id, { buyer: { customer_email: `race${i}@example.com` } });
      ids.push(checkout.subscription_id);
    }
    // A second process: its own pool and its own services, on the same database and clock.
    const second = connect(ctx.database.url, 10);
    try {
      const deps: Deps = { ...ctx.deps, db: second.db, readDb: second.db };
      const other = buildServices(deps).subscriptionRenewals;
      ctx.clock.set(new Date("2027-11-01T00:00:00.000Z"));
      const mine = { organizationId };
      const results = await Promise.all([
        ctx.services.subscriptionRenewals.sweep(mine),
        other.sweep(mine),
        ctx.services.subscriptionRenewals.sweep(mine),
        other.sweep(mine),
      ]);
      expect(results.reduce((sum, result) => sum + result.renewed, 0)).toBe(24);
    } finally {
      await second.close();
    }
    for (const id of ids) {
      const orders = await ordersOf(id);
      expect(orders.map((order) => [order.billing_reason, order.status])).toEqual([
        ["subscription_create", "paid"],
        ["subscription_cycle", "paid"],
        ["subscription_cycle", "paid"],
      ]);
      expect(
        await ctx.deps.db
          .selectFrom("payments")
          .select("id")
          .where(
            "order_id",
            "in",
            orders.map((order) => order.id),
          )
          .execute(),
      ).toHaveLength(3);
    }
  });
});
