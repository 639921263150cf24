import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cycleSubscription } from "../../../src/flows/renew-subscriptions.ts";
import { claimDueSubscription } from "../../../src/modules/subscriptions/subscriptions.steps.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

// A customer deleted while its subscription renews: the deletion takes the renewal's locks (the
// subscription, then its orders), so a renewal order is either charged before the deletion goes
// through or voided by it and never charged afterwards.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let writeToken: string;
let planId: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, writeToken],
  } = await openOrganizationContext(["checkouts:write"], ["customers:write"]));
  const plan = await createProduct(ctx.deps, org.id, {
    product: { recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1500 }],
  });
  planId = plan.product.id;
});
afterAll(() => ctx.close());

const flows = () => ({ deps: ctx.deps, payments: ctx.services.payments, taxEngine: ctx.services.taxEngine });
const deleteCustomer = (id: string) => ctx.request({ method: "DELETE", url: `/v1/customers/${id}`, token: writeToken });
const cycleOrders = (subscriptionId: string) =>
  ctx.deps.db
    .selectFrom("orders")
    .select(["id", "status"])
    .where("subscription_id", "=", subscriptionId)
    .where("billing_reason", "=", "subscription_cycle")
    .execute();
const succeededPayments = (orderId: string) =>
  ctx.deps.db.selectFrom("payments").select("id").where("order_id", "=", orderId).where("status", "=", "succeeded").execute();
const subscriptionStatus = async (id: string) =>
  (await ctx.deps.db.selectFrom("subscriptions").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status;

/** A buyer with a monthly subscription whose period has ended (the clock moved past it). */
async function dueSubscriber(email: string) {
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, planId, { buyer: { customer_email: email } });
  return { customerId: checkout.customer_id, subscriptionId: checkout.subscription_id };
}

describe("deleting a customer while its subscription renews", () => {
  it("waits for the renewal holding the subscription, voids its order, and the charge that follows charges nothing", async () => {
    ctx.clock.set(new Date("2027-03-01T09:00:00.000Z"));
    const { customerId, subscriptionId } = await dueSubscriber("racing@example.com");
    ctx.clock.set(new Date("2027-04-02T09:00:00.000Z"));

    // The renewal's own steps, in the order a sweep runs them: its claim locks the subscription...
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const isClaimed = new Promise<void>((resolve) => (claimed = resolve));
    const renewal = ctx.deps.db.transaction().execute(async (trx) => {
      const row = await claimDueSubscription(trx, ctx.deps.now(), org.id);
      expect(row?.id).toBe(subscriptionId);
      const pending = await cycleSubscription(trx, flows(), row!, ctx.deps.now());
      claimed();
      await released;
      return pending;
    });
    await isClaimed;
    // ...so the deletion, sent now, waits for the renewal's commit.
    let answered = false;
    const deletion = deleteCustomer(customerId).then((response) => {
      answered = true;
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    release();
    const pending = await renewal;
    expect(pending?.status).toBe("pending");
    expect((await deletion).statusCode).toBe(204);

    // The renewal's charge comes after the deletion's commit: the order is void, nothing is charged.
    await ctx.services.subscriptionRenewals.collect(pending!.id, "subscription_cycle");
    expect(await cycleOrders(subscriptionId)).toEqual([{ id: pending!.id, status: "void" }]);
    expect(await succeededPayments(pending!.id)).toEqual([]);
    expect(await subscriptionStatus(subscriptionId)).toBe("canceled");
  });

  it("never charges a renewal order the deletion voided, whichever of a sweep and the deletions goes first", async () => {
    ctx.clock.set(new Date("2027-06-01T09:00:00.000Z"));
    const subscribers = [];
    for (let i = 0; i < 6; i += 1) subscribers.push(await dueSubscriber(`sweep-race-${i}@example.com`));
    ctx.clock.set(new Date("2027-07-02T09:00:00.000Z"));

    const [, ...responses] = await Promise.all([
      ctx.services.subscriptionRenewals.sweep({ organizationId: org.id }),
      ...subscribers.map(({ customerId }) => deleteCustomer(customerId)),
    ]);
    for (const response of responses) expect(response.statusCode, response.body).toBe(204);
    // A second sweep finds nothing left to renew or charge.
    expect(await ctx.services.subscriptionRenewals.sweep({ organizationId: org.id })).toEqual({ renewed: 0, retried: 0 });

    for (const { subscriptionId } of subscribers) {
      expect(await subscriptionStatus(subscriptionId)).toBe("canceled");
      // Renewed before the deletion (charged, paid), or voided by it (nothing charged); never left pending.
      for (const order of await cycleOrders(subscriptionId)) {
        expect(["paid", "void"]).toContain(order.status);
        expect((await succeededPayments(order.id)).length).toBe(order.status === "paid" ? 1 : 0);
      }
    }
  });

  it("answers a deletion chosen as a deadlock's victim with a retryable 503, having changed nothing", async () => {
    ctx.clock.set(new Date("2027-09-01T09:00:00.000Z"));
    const { customerId, subscriptionId } = await dueSubscriber("deadlock@example.com");

    // The portal's card removal locks the customer, then its subscriptions: the opposite order.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const removal = ctx.deps.db.transaction().execute(async (trx) => {
      await trx.selectFrom("customers").select("id").where("id", "=", customerId).forUpdate().execute();
      const deletion = deleteCustomer(customerId);
      // Once the deletion holds the subscription and waits for the customer, close the cycle. Its
      // wait began first, so its deadlock check runs first and PostgreSQL rolls it back.
      await expect
        .poll(async () => {
          const { rows } = await sql<{ waiting: number }>`SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`.execute(ctx.deps.db);
          return rows[0]?.waiting;
        })
        .toBe(1);
      const locking = trx.selectFrom("subscriptions").select("id").where("id", "=", subscriptionId).forUpdate().execute();
      const answer = await deletion;
      await locking;
      await released;
      return answer;
    });
    release();
    const refused = await removal;

    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.json()).toEqual({
      error: "ServiceUnavailable",
      detail: "The request conflicted with a concurrent change and was not applied. Retry it.",
    });
    const customer = await ctx.deps.db.selectFrom("customers").select("deleted_at").where("id", "=", customerId).executeTakeFirstOrThrow();
    expect(customer.deleted_at).toBeNull();
    expect(await subscriptionStatus(subscriptionId)).toBe("active");

    // Sent again once the other transaction is done, it goes through.
    expect((await deleteCustomer(customerId)).statusCode).toBe(204);
    expect(await subscriptionStatus(subscriptionId)).toBe("canceled");
  });
});
