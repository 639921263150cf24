import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCustomerEvenDeleted } from "../../../src/modules/customers/customers.steps.ts";
import { findOrganization } from "../../../src/modules/organizations/organizations.steps.ts";
import { readOrder, writeAndReadOrder } from "../../../src/modules/orders/orders.steps.ts";
import { readSubscription } from "../../../src/modules/subscriptions/subscriptions.steps.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { ingest } from "../meters/meters-helpers.ts";
import { buyThroughCheckout } from "./subscription-helpers.ts";

// A renewal writes its rows and answers them from the writes (RETURNING) rather than reading them
// again (docs/decisions.md, "A renewal's writes answer what its events carry"): its events must
// carry what a read after the writes gives.

let ctx: TestContext;
let orgId: string;
let token: string;
let meterToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, meterToken],
  } = await openOrganizationContext(["checkouts:write"], ["meters:write", "events:write"]));
});
afterAll(() => ctx.close());

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** The organization's webhook events from `position` on, in recording order, with their payloads' data. */
const eventsSince = (position: number) =>
  ctx.deps.db
    .selectFrom("webhook_events")
    .select(["type", "payload", "position"])
    .where("organization_id", "=", orgId)
    .where("position", ">", position)
    .orderBy("position")
    .execute();

describe("a renewal's events", () => {
  it("carry the subscription (its meters included) and the order as a read after the writes gives them, in the same order", async () => {
    ctx.clock.set(new Date("2027-04-10T09:00:00.000Z"));
    const meter = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token: meterToken,
      payload: {
        name: "payload calls",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "payload" }] },
        aggregation: { func: "count" },
      },
    });
    expect(meter.statusCode, meter.body).toBe(201);
    const meterId = meter.json<{ id: string }>().id;
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: "Payload plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [
        { amount_type: "fixed", price_amount: 1000 },
        { amount_type: "metered_unit", unit_amount: "2.5", cap_amount: null, meter_id: meterId, meter_name: "payload calls" },
      ],
    });
    const { checkout } = await buyThroughCheckout(ctx, token, plan.product.id, { buyer: { customer_email: "payloads@example.com" } });
    const row = await ctx.deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("id", "=", checkout.subscription_id)
      .executeTakeFirstOrThrow();
    ctx.clock.set(new Date(row.current_period_start.getTime() + 60_000));
    const at = row.current_period_start.getTime() + 1_000;
    await ingest(ctx, meterToken, [
      { name: "payload", customer_id: checkout.customer_id, timestamp: new Date(at).toISOString() },
      { name: "payload", customer_id: checkout.customer_id, timestamp: new Date(at + 1).toISOString() },
    ]);
    const last = await ctx.deps.db
      .selectFrom("webhook_events")
      .select((eb) => eb.fn.max("position").as("position"))
      .where("organization_id", "=", orgId)
      .executeTakeFirstOrThrow();

    ctx.clock.set(row.current_period_end);
    expect((await ctx.services.subscriptionRenewals.sweep()).renewed).toBe(1);

    const recorded = await eventsSince(Number(last.position ?? 0));
    expect(recorded.map((event) => event.type)).toEqual([
      "subscription.cycled",
      "subscription.updated",
      "order.created",
      "order.updated",
      "order.paid",
    ]);
    const data = (type: string) => (recorded.find((event) => event.type === type)!.payload as { data: unknown }).data;
    // The subscription does not change after its renewal's first transaction, nor the order after its payment.
    const subscription = await readSubscription(ctx.deps.db, row, ctx.clock.now());
    expect(subscription.meters).toHaveLength(1);
    expect(data("subscription.cycled")).toEqual(json(subscription));
    const order = await ctx.deps.db
      .selectFrom("orders")
      .selectAll()
      .where("subscription_id", "=", row.id)
      .where("billing_reason", "=", "subscription_cycle")
      .executeTakeFirstOrThrow();
    expect(data("order.paid")).toEqual(json(await readOrder(ctx.deps.db, order)));
    expect(data("order.created")).toMatchObject({
      id: order.id,
      status: "pending",
      items: json((await readOrder(ctx.deps.db, order)).items),
    });
  });

  it("written with its order, carries the order as a read after the writes gives it (order.created)", async () => {
    const { checkout } = await buyThroughCheckout(
      ctx,
      token,
      (
        await createProduct(ctx.deps, orgId, {
          product: { name: "Written plan", recurring_interval: "month", recurring_interval_count: 1 },
          prices: [{ amount_type: "fixed", price_amount: 1500 }],
        })
      ).product.id,
      { buyer: { customer_email: "written@example.com" } },
    );
    const sub = await ctx.deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("id", "=", checkout.subscription_id)
      .executeTakeFirstOrThrow();
    // Written and read in a transaction that rolls back: the comparison leaves nothing behind.
    const rolledBack = new Error("rolled back");
    await expect(
      ctx.deps.db.transaction().execute(async (trx) => {
        const organization = (await findOrganization(trx, orgId, null))!;
        const customer = await findCustomerEvenDeleted(trx, checkout.customer_id);
        const written = await writeAndReadOrder(trx, {
          organization,
          customer,
          checkoutId: null,
          subscriptionId: sub.id,
          billingReason: "subscription_cycle",
          status: "pending",
          product: { id: sub.product_id, name: "Written plan" },
          lines: [
            { priceId: null, amount: 1500, label: "Written plan" },
            { priceId: null, amount: -200, label: "Credit", proration: true },
          ],
          amounts: { subtotal: 1300, discount: 0, net: 1300, tax: 0, total: 1300, currency: "usd" },
          taxRate: { basisPoints: null, reverseCharge: false },
          discountId: null,
          billing: { name: "Written", address: null, taxId: null },
          seats: null,
          metadata: {},
          customFieldData: {},
          paymentReference: null,
          now: ctx.clock.now(),
        });
        expect(written.published.items).toHaveLength(2);
        expect(json(written.published)).toEqual(json(await readOrder(trx, written.order)));
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });
});
