import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskName } from "../../../src/jobs/task-names.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createCustomerSessionToken, createOrder } from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import {
  documentRouteBadInputs,
  documentsContext,
  organizationFixture,
  type OrganizationFixture,
  download,
  jobsWithKey,
  orderRow,
  orderUpdatedEvents,
  runDocumentJobs,
} from "./order-documents-helpers.ts";

let ctx: TestContext;
let fx: OrganizationFixture;

beforeAll(async () => {
  ctx = await documentsContext();
  fx = await organizationFixture(ctx.deps, "Acme Receipts");
});
afterAll(() => ctx.close());

const serverUrl = (id: string) => `/v1/orders/${id}/receipt`;
const portalUrl = (id: string) => `/v1/customer-portal/orders/${id}/receipt`;
const receiptJob = (id: string) => jobsWithKey(ctx.deps, `${TaskName.orderReceipt}:${id}`);

describe.each([
  ["orders:receipt", serverUrl, async (_customerId: string) => fx.readToken],
  ["customer_portal:orders:receipt", portalUrl, (customerId: string) => createCustomerSessionToken(ctx.deps, customerId)],
] as const)("GET receipt (%s)", (operationId, url, tokenFor) => {
  it("answers 404 ReceiptNotAllocated for an order without a payment, and writes nothing", async () => {
    const order = await createOrder(ctx.deps, fx.orgId, { paid: false });
    const response = await ctx.request({ method: "GET", url: url(order.id), token: await tokenFor(order.customer_id) });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: "ReceiptNotAllocated", detail: `No receipt allocated for order ${order.id}.` });
    expect((await orderRow(ctx.deps, order.id)).receipt_requested_at).toBeNull();
    expect(await receiptJob(order.id)).toEqual([]);
  });

  it("answers 202 with an empty body while rendering, then 200 with a link to the receipt PDF", async () => {
    const customer = await createCustomer(ctx.deps, fx.orgId, { name: "Grace Hopper" });
    const order = await createOrder(ctx.deps, fx.orgId, {
      customer,
      amounts: { subtotal: 4_200, tax: 840 },
      billing: { name: null, address: null },
    });
    const token = await tokenFor(order.customer_id);
    const pending = await ctx.request({ method: "GET", url: url(order.id), token });
    expect(pending.statusCode).toBe(202);
    expect(pending.body).toBe("");
    expect((await orderRow(ctx.deps, order.id)).receipt_requested_at).not.toBeNull();
    expect(await receiptJob(order.id)).toEqual([{ task_identifier: TaskName.orderReceipt, revision: 0, payload: { orderId: order.id } }]);

    await runDocumentJobs(ctx);
    const stored = await orderRow(ctx.deps, order.id);
    expect(stored.receipt_path).toBe(`receipts/${fx.orgId}/${order.id}.pdf`);
    const ready = await ctx.request({ method: "GET", url: url(order.id), token });
    expect(ready.statusCode, ready.body).toBe(200);
    expectReferenceResponse(operationId, 200, ready.json());
    const pdf = await download(ctx, ready.json<{ url: string }>().url);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    expect(pdf.headers["cache-control"]).toBe("private, max-age=31536000, immutable");
    expect(pdf.headers["content-disposition"]).toBe(`attachment; filename="Receipt-${order.receipt_number}.pdf"`);
    const text = await pdfText(pdf.rawPayload);
    for (const expected of [
      `Receipt number: ${order.receipt_number}`,
      "Date paid",
      "Grace Hopper",
      "Tax 20% on $42.00 $8.40",
      "Amount paid $50.40",
    ]) {
      expect(text).toContain(expected);
    }
    // A receipt is not part of the Order: rendering one announces nothing.
    expect(await orderUpdatedEvents(ctx.deps, order.id)).toEqual([]);
  });

  it("enqueues one render however many requests arrive at once", async () => {
    const order = await createOrder(ctx.deps, fx.orgId);
    const token = await tokenFor(order.customer_id);
    const responses = await Promise.all(Array.from({ length: 20 }, () => ctx.request({ method: "GET", url: url(order.id), token })));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(202));
    // revision 0: the job was added once and never replaced by a second enqueue.
    expect(await receiptJob(order.id)).toEqual([{ task_identifier: TaskName.orderReceipt, revision: 0, payload: { orderId: order.id } }]);
    expect((await ctx.request({ method: "GET", url: url(order.id), token })).statusCode).toBe(202);
    expect((await receiptJob(order.id))[0]?.revision).toBe(0);
  });
});

describe("GET /v1/orders/{id}/receipt bad input", () => {
  let own: OrderRow;
  beforeAll(async () => {
    own = await createOrder(ctx.deps, fx.orgId);
  });
  badInputTable(
    () => ctx.request,
    documentRouteBadInputs(
      "GET",
      serverUrl,
      () => ({ read: fx.readToken, other: fx.otherToken, noScope: fx.noScopeToken }),
      () => ({ own: own.id, foreign: fx.otherOrder.id }),
    ),
    async () => {
      for (const id of [own.id, fx.otherOrder.id]) {
        expect((await orderRow(ctx.deps, id)).receipt_requested_at).toBeNull();
        expect(await receiptJob(id)).toEqual([]);
      }
    },
  );
});
