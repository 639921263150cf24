import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { allocateCreditNoteNumber } from "../../../src/modules/orders/order-numbers.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomerSessionToken, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { documentRouteBadInputs, documentsContext, download, jobsWithKey, runDocumentJobs } from "../orders/order-documents-helpers.ts";
import { createRefund, orderRow, paidOrder } from "./refund-helpers.ts";

// A refund of an order whose invoice exists issues a credit note in the seller's own gap-free
// sequence, linked from the refund (and listed on the customer's order in the portal).

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let checkoutToken: string;
let refundToken: string;
let refundReadToken: string;
let ordersReadToken: string;
let otherRefundReadToken: string;

beforeAll(async () => {
  ctx = await documentsContext();
  orgId = (await createOrganization(ctx.deps, "Credit Shop")).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  [checkoutToken, refundToken, refundReadToken, ordersReadToken, otherRefundReadToken] = await Promise.all([
    createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]),
    createOrganizationToken(ctx.deps, orgId, ["refunds:write"]),
    createOrganizationToken(ctx.deps, orgId, ["refunds:read"]),
    createOrganizationToken(ctx.deps, orgId, ["orders:read"]),
    createOrganizationToken(ctx.deps, otherOrgId, ["refunds:read"]),
  ]);
});
afterAll(() => ctx.close());

const refund = (orderId: string, amount: number, token = refundToken) => createRefund(ctx, token, orderId, amount);
const requestInvoice = async (orderId: string, token = ordersReadToken) =>
  expect((await ctx.request({ method: "POST", url: `/v1/orders/${orderId}/invoice`, token })).statusCode).toBe(202);
const creditNoteUrl = (refundId: string) => `/v1/refunds/${refundId}/credit-note`;
const creditNote = (refundId: string, token = refundReadToken) => ctx.request({ method: "GET", url: creditNoteUrl(refundId), token });
const creditNoteText = async (refundId: string) => {
  const link = await creditNote(refundId);
  expect(link.statusCode, link.body).toBe(200);
  const pdf = await download(ctx, link.json<{ url: string }>().url);
  expect(pdf.headers["content-type"]).toBe("application/pdf");
  return pdfText(pdf.rawPayload);
};
const notesOf = (orderId: string) =>
  ctx.deps.db.selectFrom("credit_notes").selectAll().where("order_id", "=", orderId).orderBy("number").execute();
const eventCount = async () =>
  Number(
    (
      await ctx.deps.db
        .selectFrom("webhook_events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );
const longDate = (date: Date) => new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(date);

describe("credit notes of refunds", () => {
  it("issues one for a refund of an invoiced order, in its own sequence, rendered by a job enqueued with the refund", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2500 });
    await requestInvoice(order.id);
    await runDocumentJobs(ctx);

    const refunded = await refund(order.id, 1000);
    const [note] = await notesOf(order.id);
    expect(note).toMatchObject({ refund_id: refunded.id, number: "CREDIT-SHOP-CN-0001", amount: 1000, tax_amount: 200, path: null });
    // Durable: the render was enqueued in the refund's transaction.
    expect(await jobsWithKey(ctx.deps, `${TaskName.creditNote}:${note!.id}`)).toEqual([
      expect.objectContaining({ task_identifier: TaskName.creditNote }),
    ]);
    const pending = await creditNote(refunded.id);
    expect(pending.statusCode).toBe(202);
    expect(pending.body).toBe("");

    const events = await eventCount();
    const before = await orderRow(ctx, order.id);
    await runDocumentJobs(ctx);
    // Rendering the note changes neither the order nor its webhooks.
    expect(await eventCount()).toBe(events);
    expect(await orderRow(ctx, order.id)).toEqual(before);
    expect(before).toMatchObject({ status: "partially_refunded", refunded_amount: 1000, refunded_tax_amount: 200 });

    const stored = (await notesOf(order.id))[0]!;
    expect(stored.path).toBe(`credit-notes/${orgId}/${stored.id}.pdf`);
    expect(stored.checksum).toMatch(/^[0-9a-f]{64}$/);
    const lines = (await creditNoteText(refunded.id)).split("\n").map((line) => line.trim());
    expect(lines).toEqual(
      expect.arrayContaining([
        "Credit note",
        "Credit note number: CREDIT-SHOP-CN-0001",
        `Credited invoice: ${order.invoice_number} of ${longDate(order.created_at)}`,
        `Date refunded: ${longDate(stored.refunded_at)}`,
        "Subtotal -$10.00",
        "Tax 20% on -$10.00 -$2.00",
        "Total credited -$12.00",
      ]),
    );
    expect(lines.join("\n")).toContain("Sub Scriber");
  });

  it("issues none for a refund of an order without an invoice; the invoice's first request issues them, oldest refund first", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2000 });
    const first = await refund(order.id, 500);
    ctx.clock.advance(1000);
    const second = await refund(order.id, 700);
    const missing = await creditNote(first.id);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: "CreditNoteDoesNotExist", detail: `No credit note exists for refund ${first.id}.` });
    expect(await notesOf(order.id)).toEqual([]);

    await requestInvoice(order.id);
    await requestInvoice(order.id);
    const notes = await notesOf(order.id);
    expect(notes.map((note) => [note.refund_id, note.amount, note.tax_amount])).toEqual([
      [first.id, 500, 100],
      [second.id, 700, 140],
    ]);
    const numbers = notes.map((note) => Number(note.number.slice("CREDIT-SHOP-CN-".length)));
    expect(numbers[1]).toBe(numbers[0]! + 1);
    await runDocumentJobs(ctx);

    // The invoice shows the sale as it was made; each refund is corrected by its note.
    const invoice = await ctx.request({ method: "GET", url: `/v1/orders/${order.id}/invoice`, token: ordersReadToken });
    const invoiceText = await pdfText((await download(ctx, invoice.json<{ url: string }>().url)).rawPayload);
    expect(invoiceText).toContain("Amount paid $24.00");
    expect(invoiceText).not.toMatch(/Refunded|Credit note|credited/);
    expect(await creditNoteText(second.id)).toMatch(/Total credited -\$8\.40/);
  });

  it("gives racing refunds of one organization distinct consecutive numbers, and a refund racing the invoice request exactly one note", async () => {
    const racingOrgId = (await createOrganization(ctx.deps, "Race Shop")).id;
    const [raceCheckout, raceRefund, raceRead] = await Promise.all([
      createOrganizationToken(ctx.deps, racingOrgId, ["checkouts:write"]),
      createOrganizationToken(ctx.deps, racingOrgId, ["refunds:write"]),
      createOrganizationToken(ctx.deps, racingOrgId, ["orders:read"]),
    ]);
    const orders = [];
    for (let i = 0; i < 8; i += 1) orders.push(await paidOrder(ctx, racingOrgId, raceCheckout, { price: 1000 }));
    const invoiced = orders.slice(0, 5);
    for (const order of invoiced) await requestInvoice(order.id, raceRead);
    // Five refunds of invoiced orders at once, and three refunds each racing its order's invoice request.
    await Promise.all([
      ...invoiced.map((order) => refund(order.id, 400, raceRefund)),
      ...orders.slice(5).flatMap((order) => [refund(order.id, 400, raceRefund), requestInvoice(order.id, raceRead)]),
    ]);
    const notes = await ctx.deps.db.selectFrom("credit_notes").selectAll().where("organization_id", "=", racingOrgId).execute();
    expect(notes.map((note) => note.number).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `RACE-SHOP-CN-${String(i + 1).padStart(4, "0")}`),
    );
    expect(new Set(notes.map((note) => note.order_id)).size).toBe(8);
  });

  it("gives the number of a transaction that rolls back to the next note: no gap", async () => {
    const org = await createOrganization(ctx.deps, "Rollback Shop");
    const numbering = { id: org.id, slug: org.slug, invoice_prefix: null };
    await expect(
      ctx.deps.db.transaction().execute(async (trx) => {
        expect(await allocateCreditNoteNumber(trx, numbering)).toBe("ROLLBACK-SHOP-CN-0001");
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await allocateCreditNoteNumber(ctx.deps.db, numbering)).toBe("ROLLBACK-SHOP-CN-0001");
    expect(await allocateCreditNoteNumber(ctx.deps.db, { ...numbering, invoice_prefix: "RB" })).toBe("RB-CN-0002");
  });

  it("numbers per organization, each from 0001", async () => {
    const otherCheckout = await createOrganizationToken(ctx.deps, otherOrgId, ["checkouts:write"]);
    const otherRefund = await createOrganizationToken(ctx.deps, otherOrgId, ["refunds:write"]);
    const otherRead = await createOrganizationToken(ctx.deps, otherOrgId, ["orders:read"]);
    const order = await paidOrder(ctx, otherOrgId, otherCheckout, { price: 1000 });
    await requestInvoice(order.id, otherRead);
    await refund(order.id, 100, otherRefund);
    expect((await notesOf(order.id)).map((note) => note.number)).toEqual([expect.stringMatching(/-CN-0001$/)]);
  });
});

describe("the documents' language", () => {
  it("follows the checkout's locale: a French buyer's invoice and credit note are in French", async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2500, locale: "fr-FR" });
    await requestInvoice(order.id);
    const refunded = await refund(order.id, 1000);
    await runDocumentJobs(ctx);
    const invoice = await ctx.request({ method: "GET", url: `/v1/orders/${order.id}/invoice`, token: ordersReadToken });
    const invoiceLines = (await pdfText((await download(ctx, invoice.json<{ url: string }>().url)).rawPayload))
      .replace(/\u00a0|\u202f/g, " ")
      .split("\n");
    expect(invoiceLines).toEqual(
      expect.arrayContaining(["Facture", `Numéro de facture: ${order.invoice_number}`, "Montant payé 30,00 $US"]),
    );
    const noteLines = (await creditNoteText(refunded.id)).replace(/\u00a0|\u202f/g, " ").split("\n");
    expect(noteLines).toEqual(expect.arrayContaining(["Avoir", "Total crédité -12,00 $US"]));
    expect(noteLines.join("\n")).toContain(`Facture d'origine: ${order.invoice_number} du `);
  });
});

describe("the OpenAPI document", () => {
  it("lists the refund's credit note and the portal's credit notes of an order", async () => {
    const document = (await ctx.request({ method: "GET", url: "/openapi.json" })).json();
    const refundNote = document.paths["/v1/refunds/{id}/credit-note"].get;
    expect(refundNote.operationId).toBe("refunds:credit_note");
    expect(Object.keys(refundNote.responses)).toEqual(expect.arrayContaining(["200", "202", "404"]));
    expect(refundNote.responses["200"].content["application/json"].schema.required).toEqual(["url"]);
    const portalNotes = document.paths["/v1/customer-portal/orders/{id}/credit-notes"].get;
    expect(portalNotes.operationId).toBe("customer_portal:orders:credit_notes");
  });
});

describe("GET /v1/refunds/{id}/credit-note refusals", () => {
  let own: string;
  let foreign: string;
  beforeAll(async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 1000 });
    own = (await refund(order.id, 100)).id;
    const otherCheckout = await createOrganizationToken(ctx.deps, otherOrgId, ["checkouts:write"]);
    const otherRefund = await createOrganizationToken(ctx.deps, otherOrgId, ["refunds:write"]);
    foreign = (await refund((await paidOrder(ctx, otherOrgId, otherCheckout, { price: 1000 })).id, 100, otherRefund)).id;
  });

  badInputTable(
    () => ctx.request,
    documentRouteBadInputs(
      "GET",
      creditNoteUrl,
      () => ({ read: refundReadToken, other: otherRefundReadToken, noScope: ordersReadToken }),
      () => ({ own, foreign }),
    ),
  );
});

describe("GET /v1/customer-portal/orders/{id}/credit-notes", () => {
  let orderId: string;
  let session: string;
  let neighbourSession: string;
  let foreignOrderId: string;
  beforeAll(async () => {
    const order = await paidOrder(ctx, orgId, checkoutToken, { price: 3000 });
    orderId = order.id;
    session = await createCustomerSessionToken(ctx.deps, order.customer_id);
    const neighbour = await paidOrder(ctx, orgId, checkoutToken, { price: 1000 });
    neighbourSession = await createCustomerSessionToken(ctx.deps, neighbour.customer_id);
    const otherCheckout = await createOrganizationToken(ctx.deps, otherOrgId, ["checkouts:write"]);
    foreignOrderId = (await paidOrder(ctx, otherOrgId, otherCheckout, { price: 1000 })).id;
  });
  const listUrl = (id: string) => `/v1/customer-portal/orders/${id}/credit-notes`;

  it("lists the customer's credit notes of an order, each with its link once rendered", async () => {
    const empty = await ctx.request({ method: "GET", url: listUrl(orderId), token: session });
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual({ items: [] });

    await requestInvoice(orderId);
    const refunded = await refund(orderId, 1500);
    const pending = await ctx.request({ method: "GET", url: listUrl(orderId), token: session });
    const [note] = await notesOf(orderId);
    expect(pending.json()).toEqual({
      items: [
        { number: note!.number, created_at: note!.created_at.toISOString(), refunded_amount: 1500, refunded_tax_amount: 300, url: null },
      ],
    });
    await runDocumentJobs(ctx);
    const listed = (await ctx.request({ method: "GET", url: listUrl(orderId), token: session })).json<{ items: { url: string }[] }>();
    expect(listed.items).toHaveLength(1);
    const text = await pdfText((await download(ctx, listed.items[0]!.url)).rawPayload);
    expect(text).toContain(note!.number);
    expect(text).toMatch(/Total credited -\$18\.00/);
    expect(refunded.status).toBe("succeeded");
  });

  badInputTable(
    () => ctx.request,
    documentRouteBadInputs(
      "GET",
      listUrl,
      () => ({ read: session, other: neighbourSession, noScope: ordersReadToken }),
      () => ({ own: orderId, foreign: foreignOrderId }),
      401,
    ),
  );
});
