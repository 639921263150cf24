import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { openOrganizationContext } from "../../helpers/factories.ts";
import { orderRow, paidOrder } from "./refund-helpers.ts";

// Refunds racing for the same order's last refundable cents: the order's row lock serializes them,
// so the totals never pass what was paid and every loser is refused with the anchor's answer.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let refundToken: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, refundToken],
  } = await openOrganizationContext(["checkouts:write"], ["refunds:write"]));
});
afterAll(() => ctx.close());

const refund = (orderId: string, amount: number) =>
  ctx.request({ method: "POST", url: "/v1/refunds/", token: refundToken, payload: { order_id: orderId, reason: "duplicate", amount } });
const succeededRefunds = (orderId: string) =>
  ctx.deps.db.selectFrom("refunds").selectAll().where("order_id", "=", orderId).where("status", "=", "succeeded").execute();

describe("concurrent refunds of one order", () => {
  it("let exactly one of several refunds of the last 300 cents through; the others are 403 RefundedAlready", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    expect((await refund(order.id, 700)).statusCode).toBe(201);
    const responses = await Promise.all(Array.from({ length: 5 }, () => refund(order.id, 300)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, 403, 403, 403, 403]);
    // The winner refunded everything left: the order is refunded, so the losers meet RefundedAlready.
    for (const response of responses.filter((r) => r.statusCode === 403)) expect(response.json().error).toBe("RefundedAlready");
    expect(await orderRow(ctx, order.id)).toMatchObject({ status: "refunded", refunded_amount: 1000, refunded_tax_amount: 200 });
    const refunds = await succeededRefunds(order.id);
    expect(refunds.reduce((sum, row) => sum + row.amount, 0)).toBe(1000);
    expect(refunds.reduce((sum, row) => sum + row.tax_amount, 0)).toBe(200);
  });

  it("never over-refunds when partial refunds together exceed what is left", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const responses = await Promise.all(Array.from({ length: 6 }, () => refund(order.id, 400)));
    const won = responses.filter((response) => response.statusCode === 201);
    const lost = responses.filter((response) => response.statusCode !== 201);
    // 400 + 400 fit in 1000, a third does not: exactly two win, whichever the order.
    expect(won).toHaveLength(2);
    for (const response of lost) {
      expect(response.statusCode).toBe(422);
      expect(response.json().detail[0]).toMatchObject({ loc: ["body", "amount"], msg: "Refund amount exceeds refundable amount" });
    }
    const stored = await orderRow(ctx, order.id);
    expect(stored).toMatchObject({ status: "partially_refunded", refunded_amount: 800, refunded_tax_amount: 160 });
    expect((await succeededRefunds(order.id)).length).toBe(2);
  });
});
