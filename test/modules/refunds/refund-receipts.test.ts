import { Logger, runOnce } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { orderDocumentTasks } from "../../../src/modules/orders/order-documents.tasks.ts";
import type { BlobStore } from "../../../src/adapters/blob-stores/blob-store.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { documentsContext, download, jobsWithKey, runDocumentJobs } from "../orders/order-documents-helpers.ts";
import { orderRow, paidOrder } from "./refund-helpers.ts";

// A refund changes what the receipt must say: a receipt already rendered (or being rendered) is
// rendered again, under a key of its own, and shows what went back.

let ctx: TestContext;
let orgId: string;
let checkoutToken: string;
let refundToken: string;
let readToken: string;

beforeAll(async () => {
  ctx = await documentsContext();
  orgId = (await createOrganization(ctx.deps)).id;
  [checkoutToken, refundToken, readToken] = await Promise.all([
    createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]),
    createOrganizationToken(ctx.deps, orgId, ["refunds:write"]),
    createOrganizationToken(ctx.deps, orgId, ["orders:read"]),
  ]);
});
afterAll(() => ctx.close());

const receipt = (orderId: string) => ctx.request({ method: "GET", url: `/v1/orders/${orderId}/receipt`, token: readToken });
const refund = (orderId: string, amount: number) =>
  ctx.request({ method: "POST", url: "/v1/refunds/", token: refundToken, payload: { order_id: orderId, reason: "other", amount } });
const receiptJobs = (orderId: string) => jobsWithKey(ctx.deps, `${TaskName.orderReceipt}:${orderId}`);

describe("the receipt of a refunded order", () => {
  it("is rendered again after each refund, under a new key, with the refunded amount", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 4000 });
    expect((await receipt(order.id)).statusCode).toBe(202);
    await runDocumentJobs(ctx);
    expect((await orderRow(ctx, order.id)).receipt_path).toBe(`receipts/${orgId}/${order.id}.pdf`);
    const before = await pdfText((await download(ctx, (await receipt(order.id)).json<{ url: string }>().url)).rawPayload);
    expect(before).not.toContain("Refunded");

    expect((await refund(order.id, 1000)).statusCode).toBe(201);
    expect(await orderRow(ctx, order.id)).toMatchObject({ receipt_path: null, receipt_requested_at: expect.any(Date) });
    expect(await receiptJobs(order.id)).toEqual([expect.objectContaining({ task_identifier: TaskName.orderReceipt })]);
    // While it renders, the receipt answers 202 without enqueueing a second render.
    expect((await receipt(order.id)).statusCode).toBe(202);
    await runDocumentJobs(ctx);

    // 1000 refunded with 200 of tax: 1200 went back.
    expect((await orderRow(ctx, order.id)).receipt_path).toBe(`receipts/${orgId}/${order.id}-refunded-1200.pdf`);
    const ready = await receipt(order.id);
    expect(ready.statusCode).toBe(200);
    const text = await pdfText((await download(ctx, ready.json<{ url: string }>().url)).rawPayload);
    expect(text).toContain("Amount paid $48.00");
    // Each refund on its own line with its date, then what stays paid.
    const longDate = new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" });
    const refundDate = longDate.format(ctx.deps.now());
    expect(text).toContain(`Refunded ${refundDate} -$12.00\nNet paid $36.00`);

    // The second refund a day later: the receipt lists both, oldest first, each with its date.
    ctx.clock.advance(86_400_000);
    const laterDate = longDate.format(ctx.deps.now());
    expect((await refund(order.id, 3000)).statusCode).toBe(201);
    await runDocumentJobs(ctx);
    expect((await orderRow(ctx, order.id)).receipt_path).toBe(`receipts/${orgId}/${order.id}-refunded-4800.pdf`);
    const full = await pdfText((await download(ctx, (await receipt(order.id)).json<{ url: string }>().url)).rawPayload);
    expect(full).toContain(`Refunded ${refundDate} -$12.00\nRefunded ${laterDate} -$36.00\nNet paid $0.00`);
  });

  it("is not rendered for a refund when nobody asked for it yet; the first request renders it with the refund", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 1000 });
    expect((await refund(order.id, 500)).statusCode).toBe(201);
    expect(await receiptJobs(order.id)).toEqual([]);
    expect((await orderRow(ctx, order.id)).receipt_requested_at).toBeNull();
    expect((await receipt(order.id)).statusCode).toBe(202);
    await runDocumentJobs(ctx);
    const text = await pdfText((await download(ctx, (await receipt(order.id)).json<{ url: string }>().url)).rawPayload);
    expect(text).toMatch(/Refunded [A-Z][a-z]+ \d+, \d{4} -\$6\.00/);
  });

  it("is not recorded from a render that a refund overtook: the refund's own render is", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2000 });
    expect((await receipt(order.id)).statusCode).toBe(202);
    // The refund lands after the first render was drawn and before it is recorded.
    let refunded = false;
    const store: BlobStore = {
      ...ctx.services.blobs,
      put: async (key, body, meta) => {
        if (!refunded) {
          refunded = true;
          expect((await refund(order.id, 500)).statusCode).toBe(201);
        }
        await ctx.services.blobs.put(key, body, meta);
      },
      exists: (key) => ctx.services.blobs.exists(key),
      downloadUrl: (key, options) => ctx.services.blobs.downloadUrl(key, options),
    };
    await runOnce({
      pgPool: ctx.database.pool,
      taskList: orderDocumentTasks(ctx.deps, store),
      noHandleSignals: true,
      logger: new Logger(() => () => undefined),
    });
    expect(refunded).toBe(true);
    expect((await orderRow(ctx, order.id)).receipt_path).toBe(`receipts/${orgId}/${order.id}-refunded-600.pdf`);
    const text = await pdfText((await download(ctx, (await receipt(order.id)).json<{ url: string }>().url)).rawPayload);
    expect(text).toMatch(/Refunded [A-Z][a-z]+ \d+, \d{4} -\$6\.00/);
  });
});
