import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { orderDocumentTasks } from "../../../src/modules/orders/order-documents.tasks.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createDiscount, createOrder, createOrganizationToken } from "../../helpers/factories.ts";
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

let ctx: TestContext & { dataDir: string };
let fx: OrganizationFixture;

beforeAll(async () => {
  ctx = await documentsContext();
  fx = await organizationFixture(ctx.deps, "Acme Invoices");
});
afterAll(() => ctx.close());

const invoiceUrl = (id: string) => `/v1/orders/${id}/invoice`;
const requestInvoice = (id: string, token: string | null = fx.readToken) => ctx.request({ method: "POST", url: invoiceUrl(id), token });
const getInvoice = (id: string, token: string | null = fx.readToken) => ctx.request({ method: "GET", url: invoiceUrl(id), token });

/** An order with every figure an invoice prints: a discounted, taxed line in euros, a tax id. */
async function invoiceableOrder(values: NonNullable<Parameters<typeof createOrder>[2]>["values"] = {}) {
  const customer = await createCustomer(ctx.deps, fx.orgId, { name: "Ada Lovelace" });
  const discount = await createDiscount(ctx.deps, fx.orgId, { name: "LAUNCH20", basis_points: 2000 });
  return createOrder(ctx.deps, fx.orgId, {
    customer,
    discount,
    amounts: { subtotal: 10_000, discount: 2_000, tax: 1_600 },
    billing: {
      name: "Lovelace Analytical Ltd",
      address: { line1: "12 Analytical Row", line2: null, postal_code: "75001", city: "Paris", state: null, country: "FR" },
    },
    values: { currency: "eur", tax_id: JSON.stringify(["FR61954506077", "eu_vat"]), ...values },
  });
}

describe("POST /v1/orders/{id}/invoice", () => {
  it("accepts the empty JSON body the official SDK sends, while a route with a body still requires one", async () => {
    const order = await invoiceableOrder();
    const json = { "content-type": "application/json" };
    const response = await ctx.request({ method: "POST", url: invoiceUrl(order.id), token: fx.readToken, headers: json, payload: "" });
    expect(response.statusCode, response.body).toBe(202);
    const writeToken = await createOrganizationToken(ctx.deps, fx.orgId, ["orders:write"]);
    const patch = await ctx.request({ method: "PATCH", url: `/v1/orders/${order.id}`, token: writeToken, headers: json, payload: "" });
    expect(patch.statusCode).toBe(422);
    expect(patch.json()).toEqual({
      error: "RequestValidationError",
      detail: [{ loc: ["body"], msg: "Field required", type: "missing", input: null }],
    });
  });

  it("answers 202 with null, schedules one job and, once it ran, the invoice is stored, linked and announced", async () => {
    const order = await invoiceableOrder();
    expect((await getInvoice(order.id)).json()).toEqual({
      error: "InvoiceDoesNotExist",
      detail: `No invoice exists for order ${order.id}.`,
    });

    const response = await requestInvoice(order.id);
    expect(response.statusCode, response.body).toBe(202);
    expect(response.body).toBe("null");
    expectReferenceResponse("orders:generate_invoice", 202, response.json());
    expect((await orderRow(ctx.deps, order.id)).invoice_requested_at).not.toBeNull();
    expect(await jobsWithKey(ctx.deps, `${TaskName.orderInvoice}:${order.id}`)).toEqual([
      { task_identifier: TaskName.orderInvoice, revision: 0, payload: { orderId: order.id } },
    ]);
    expect((await getInvoice(order.id)).statusCode).toBe(404);

    await runDocumentJobs(ctx);
    const stored = await orderRow(ctx.deps, order.id);
    expect(stored.invoice_path).toBe(`invoices/${fx.orgId}/${order.id}.pdf`);
    expect(stored.invoice_number).toBe(order.invoice_number);
    const file = await readFile(path.join(ctx.dataDir, "blobs", stored.invoice_path!));
    expect(stored.invoice_checksum).toBe(createHash("sha256").update(file).digest("hex"));

    const events = await orderUpdatedEvents(ctx.deps, order.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ is_invoice_generated: true, invoice_number: order.invoice_number });
    const read = await ctx.request({ method: "GET", url: `/v1/orders/${order.id}`, token: fx.readToken });
    expect(read.json()).toMatchObject({ is_invoice_generated: true, invoice_number: order.invoice_number });

    const link = await getInvoice(order.id);
    expect(link.statusCode, link.body).toBe(200);
    expectReferenceResponse("orders:invoice", 200, link.json());
    const pdf = await download(ctx, link.json<{ url: string }>().url);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    expect(pdf.headers["content-disposition"]).toBe(`attachment; filename="Invoice-${order.invoice_number}.pdf"`);
    expect(pdf.rawPayload.equals(file)).toBe(true);
    const text = await pdfText(pdf.rawPayload);
    for (const expected of [
      order.invoice_number!,
      "Acme Invoices",
      "Lovelace Analytical Ltd",
      "12 Analytical Row",
      "FR61954506077",
      "€100.00",
      "Discount -€20.00",
      "Tax 20% on €80.00 €16.00",
      " 1 €100.00 20% €16.00 €100.00",
      "Amount paid €96.00",
    ]) {
      expect(text).toContain(expected);
    }
  });

  it("does nothing new when asked again, pending or generated", async () => {
    const order = await invoiceableOrder();
    expect((await requestInvoice(order.id)).statusCode).toBe(202);
    const requestedAt = (await orderRow(ctx.deps, order.id)).invoice_requested_at;
    expect((await requestInvoice(order.id)).statusCode).toBe(202);
    expect((await jobsWithKey(ctx.deps, `${TaskName.orderInvoice}:${order.id}`))[0]?.revision).toBe(0);
    await runDocumentJobs(ctx);
    const generated = await orderRow(ctx.deps, order.id);
    const again = await requestInvoice(order.id);
    expect(again.statusCode).toBe(202);
    expect(again.body).toBe("null");
    expect(await jobsWithKey(ctx.deps, `${TaskName.orderInvoice}:${order.id}`)).toEqual([]);
    await runDocumentJobs(ctx);
    expect(await orderRow(ctx.deps, order.id)).toEqual(generated);
    expect(generated.invoice_requested_at).toEqual(requestedAt);
    expect(await orderUpdatedEvents(ctx.deps, order.id)).toHaveLength(1);
  });

  it("generates one invoice and one order.updated when the job runs twice at once (at-least-once delivery)", async () => {
    const order = await invoiceableOrder();
    expect((await requestInvoice(order.id)).statusCode).toBe(202);
    const task = orderDocumentTasks(ctx.deps, ctx.services.blobs)[TaskName.orderInvoice]!;
    const helpers = {} as Parameters<typeof task>[1];
    await Promise.all([task({ orderId: order.id }, helpers), task({ orderId: order.id }, helpers), task({ orderId: order.id }, helpers)]);
    await task({ orderId: order.id }, helpers);
    const stored = await orderRow(ctx.deps, order.id);
    const file = await readFile(path.join(ctx.dataDir, "blobs", stored.invoice_path!));
    expect(stored.invoice_checksum).toBe(createHash("sha256").update(file).digest("hex"));
    expect(await orderUpdatedEvents(ctx.deps, order.id)).toHaveLength(1);
  });

  it("freezes the billing details once requested: a PATCH then answers 409", async () => {
    const order = await invoiceableOrder();
    expect((await requestInvoice(order.id)).statusCode).toBe(202);
    const patch = await ctx.request({
      method: "PATCH",
      url: `/v1/orders/${order.id}`,
      token: await createOrganizationToken(ctx.deps, fx.orgId, ["orders:write"]),
      payload: { billing_name: "Someone Else" },
    });
    expect(patch.statusCode).toBe(409);
    expect(patch.json()).toMatchObject({ error: "OrderInvoiceAlreadyRequested" });
    expect((await orderRow(ctx.deps, order.id)).billing_name).toBe("Lovelace Analytical Ltd");
  });

  describe("a PATCH racing the invoice request lands before it (and is printed) or is refused after it", () => {
    /** Backends of this database waiting on a lock: the requests queued behind the test's row lock. */
    const lockWaiters = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(
            ctx.deps.db,
          )
        ).rows[0]!.n,
      );
    const until = async (condition: () => Promise<boolean>) => {
      for (const deadline = Date.now() + 20_000; !(await condition()); await new Promise((resolve) => setTimeout(resolve, 10))) {
        if (Date.now() > deadline) throw new Error("the requests did not queue behind the row lock in time");
      }
    };
    const printedName = async (id: string) =>
      pdfText(await readFile(path.join(ctx.dataDir, "blobs", (await orderRow(ctx.deps, id)).invoice_path!)));

    /**
     * Sends the two requests in the given order while the test holds the order's row lock, each
     * queued behind it before the next is sent, then lets them through in that order.
     */
    async function race(order: OrderRow, first: "patch" | "invoice") {
      const writeToken = await createOrganizationToken(ctx.deps, fx.orgId, ["orders:write"]);
      const send = {
        patch: () =>
          ctx.request({ method: "PATCH", url: `/v1/orders/${order.id}`, token: writeToken, payload: { billing_name: "Renamed Ltd" } }),
        invoice: () => requestInvoice(order.id),
      };
      const holder = new pg.Client({ connectionString: ctx.database.url });
      await holder.connect();
      try {
        await holder.query("BEGIN");
        await holder.query("SELECT id FROM orders WHERE id = $1 FOR UPDATE", [order.id]);
        const sent = new Map<"patch" | "invoice", ReturnType<typeof send.patch>>();
        for (const name of first === "patch" ? (["patch", "invoice"] as const) : (["invoice", "patch"] as const)) {
          sent.set(name, send[name]());
          await until(async () => (await lockWaiters()) === sent.size);
        }
        await holder.query("ROLLBACK");
        const [patch, invoice] = await Promise.all([sent.get("patch")!, sent.get("invoice")!]);
        return { patch, invoice };
      } finally {
        await holder.end();
      }
    }

    it("a PATCH queued first is applied, and the invoice prints it", async () => {
      const order = await invoiceableOrder();
      const { patch, invoice } = await race(order, "patch");
      expect(patch.statusCode, patch.body).toBe(200);
      expect(invoice.statusCode, invoice.body).toBe(202);
      await runDocumentJobs(ctx);
      expect((await orderRow(ctx.deps, order.id)).billing_name).toBe("Renamed Ltd");
      expect(await printedName(order.id)).toContain("Renamed Ltd");
    });

    it("a PATCH queued after the invoice request is refused, and the invoice prints the details it froze", async () => {
      const order = await invoiceableOrder();
      const { patch, invoice } = await race(order, "invoice");
      expect(invoice.statusCode, invoice.body).toBe(202);
      expect(patch.statusCode, patch.body).toBe(409);
      expect(patch.json()).toMatchObject({ error: "OrderInvoiceAlreadyRequested" });
      await runDocumentJobs(ctx);
      expect((await orderRow(ctx.deps, order.id)).billing_name).toBe("Lovelace Analytical Ltd");
      const printed = await printedName(order.id);
      expect(printed).toContain("Lovelace Analytical Ltd");
      expect(printed).not.toContain("Renamed Ltd");
    });
  });

  it.each(["pending", "refunded", "partially_refunded"] as const)("accepts a %s order", async (status) => {
    const order = await invoiceableOrder({ status });
    expect((await requestInvoice(order.id)).statusCode).toBe(202);
  });

  it("accepts an empty billing name: only a missing one refuses", async () => {
    const order = await createOrder(ctx.deps, fx.orgId, {
      billing: { name: "", address: { line1: null, line2: null, postal_code: null, city: null, state: null, country: "US" } },
    });
    expect((await requestInvoice(order.id)).statusCode).toBe(202);
  });

  describe("refusals write nothing", () => {
    const refusals: [string, () => Promise<OrderRow>, number, object | ((id: string) => object)][] = [
      [
        "a draft order",
        () => invoiceableOrder({ status: "draft" }),
        409,
        (id: string) => ({
          error: "OrderNotEligibleForInvoice",
          detail: `Order ${id} is not eligible for invoice generation (current status: draft).`,
        }),
      ],
      [
        "a void order",
        () => invoiceableOrder({ status: "void" }),
        409,
        (id: string) => ({
          error: "OrderNotEligibleForInvoice",
          detail: `Order ${id} is not eligible for invoice generation (current status: void).`,
        }),
      ],
      [
        "no billing name",
        () =>
          createOrder(ctx.deps, fx.orgId, {
            billing: { name: null, address: { line1: "x", line2: null, postal_code: null, city: null, state: null, country: "FR" } },
          }),
        422,
        { error: "MissingInvoiceBillingDetails", detail: "Billing name and address are required to generate an invoice for this order." },
      ],
      [
        "no billing address",
        () => createOrder(ctx.deps, fx.orgId, { billing: { name: "Ada", address: null } }),
        422,
        { error: "MissingInvoiceBillingDetails", detail: "Billing name and address are required to generate an invoice for this order." },
      ],
    ];
    it.each(refusals)("refuses %s", async (_name, make, status, body) => {
      const order = await make();
      const response = await requestInvoice(order.id);
      expect(response.statusCode).toBe(status);
      const expected = typeof body === "function" ? body(order.id) : body;
      expect(response.json()).toEqual(expected);
      expectReferenceResponse("orders:generate_invoice", status, response.json());
      expect((await orderRow(ctx.deps, order.id)).invoice_requested_at).toBeNull();
      expect(await jobsWithKey(ctx.deps, `${TaskName.orderInvoice}:${order.id}`)).toEqual([]);
    });
  });
});

describe("bad input", () => {
  let own: OrderRow;
  beforeAll(async () => {
    own = await invoiceableOrder();
  });
  const tokens = () => ({ read: fx.readToken, other: fx.otherToken, noScope: fx.noScopeToken });
  const orders = () => ({ own: own.id, foreign: fx.otherOrder.id });
  const untouched = async () => {
    for (const id of [own.id, fx.otherOrder.id]) {
      expect((await orderRow(ctx.deps, id)).invoice_requested_at).toBeNull();
      expect(await jobsWithKey(ctx.deps, `${TaskName.orderInvoice}:${id}`)).toEqual([]);
    }
  };
  describe("POST", () => badInputTable(() => ctx.request, documentRouteBadInputs("POST", invoiceUrl, tokens, orders), untouched));
  describe("GET", () => badInputTable(() => ctx.request, documentRouteBadInputs("GET", invoiceUrl, tokens, orders), untouched));
});

describe("GET /v1/orders/{id}/invoice links", () => {
  it("expire after DOWNLOAD_URL_TTL_SECONDS and refuse tampering with 403", async () => {
    const order = await invoiceableOrder();
    await requestInvoice(order.id);
    await runDocumentJobs(ctx);
    const { url } = (await getInvoice(order.id)).json<{ url: string }>();
    expect(new URL(url).searchParams.get("expires")).toBe(String(Math.floor(ctx.clock.now().getTime() / 1000) + 600));
    const tampered = url.replace(/signature=(.)/, (_m, c: string) => `signature=${c === "A" ? "B" : "A"}`);
    expect((await download(ctx, tampered)).statusCode).toBe(403);
    ctx.clock.advance(601_000);
    try {
      const expired = await download(ctx, url);
      expect(expired.statusCode).toBe(403);
      expect(expired.json()).toEqual({ error: "Forbidden", detail: "This download link is invalid or has expired." });
    } finally {
      ctx.clock.advance(-601_000);
    }
    expect((await download(ctx, url)).statusCode).toBe(200);
  });
});
