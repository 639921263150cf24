import { createPolar } from "@polar-sh/sdk/2026-04";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type TestContext } from "../../helpers/context.ts";
import { createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { paidOrder } from "./refund-helpers.ts";

// The official client, unchanged, against a listening server: refunds and payments.

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let baseUrl: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken],
  } = await openOrganizationContext(["checkouts:write"]));
  baseUrl = await listen(ctx);
});
afterAll(() => ctx.close());

describe("official SDK @polar-sh/sdk/2026-04: refunds and payments", () => {
  it("creates and lists refunds, lists and reads payments, and surfaces a refusal as the SDK's error", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken, { price: 1000 });
    const token = await createOrganizationToken(ctx.deps, org.id, ["refunds:write", "payments:read"]);
    const polar = createPolar({ accessToken: token, baseUrl });

    const refund = await polar.refunds.create({ order_id: order.id, reason: "customer_request", amount: 250, metadata: { ticket: 7 } });
    expect(refund).toMatchObject({ status: "succeeded", amount: 250, tax_amount: 50, order_id: order.id, metadata: { ticket: 7 } });
    const refunds = await polar.refunds.list({ order_id: order.id, succeeded: true, sorting: ["-amount"] });
    expect(refunds.items.map((item) => item.id)).toEqual([refund.id]);

    const payments = await polar.payments.list({ order_id: order.id, status: "succeeded" });
    expect(payments.items).toHaveLength(1);
    const payment = await polar.payments.get(payments.items[0]!.id);
    expect(payment).toMatchObject({ order_id: order.id, amount: 1200, method: "card", status: "succeeded" });

    await expect(polar.refunds.create({ order_id: order.id, reason: "other", amount: 751 })).rejects.toMatchObject({ statusCode: 422 });
  });
});
