import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCUMENT_LINK_TTL_MS, signDocumentLink, type LinkedDocument } from "../../../src/modules/orders/order-document-links.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrder, createOrganization } from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { documentsContext, download, orderRow, PUBLIC_BASE_URL, runDocumentJobs } from "./order-documents-helpers.ts";

let ctx: TestContext;
let orgId: string;

beforeAll(async () => {
  ctx = await documentsContext();
  orgId = (await createOrganization(ctx.deps, "Acme Links")).id;
});
afterAll(() => ctx.close());

const UNKNOWN_ID = "3f2b1c4d-1111-4222-8333-123456789abc";

const linkTo = (orderId: string, document: LinkedDocument, expiresAt = new Date(ctx.deps.now().getTime() + DOCUMENT_LINK_TTL_MS)) =>
  signDocumentLink({ secret: ctx.deps.secret, publicBaseUrl: PUBLIC_BASE_URL }, { id: orderId, document, expiresAt });

/** Follows a link as a browser would, without its cookies or tokens: no authorization header. */
const follow = (url: string) => ctx.request({ method: "GET", url: url.replace(PUBLIC_BASE_URL, "") });

describe("GET /documents/orders/{id}/{receipt|invoice} and /documents/credit-notes/{id} (the links emails carry)", () => {
  it("prepares the receipt on the first visit, then redirects to the PDF", async () => {
    const order = await createOrder(ctx.deps, orgId, { amounts: { subtotal: 4_200, tax: 0 } });
    const link = linkTo(order.id, "receipt");

    const preparing = await follow(link);
    expect(preparing.statusCode).toBe(202);
    expect(preparing.headers["refresh"]).toBe("3");
    expect(preparing.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(preparing.body).toContain("Your receipt is being prepared");
    expect((await orderRow(ctx.deps, order.id)).receipt_requested_at).not.toBeNull();

    await runDocumentJobs(ctx);
    const ready = await follow(link);
    expect(ready.statusCode).toBe(303);
    const pdf = await download(ctx, String(ready.headers["location"]));
    expect(pdf.statusCode).toBe(200);
    expect(await pdfText(pdf.rawPayload)).toContain(order.receipt_number!);
  });

  it("prepares the invoice of an order with billing details, then redirects to it", async () => {
    const order = await createOrder(ctx.deps, orgId);
    const link = linkTo(order.id, "invoice");
    expect((await follow(link)).statusCode).toBe(202);
    await runDocumentJobs(ctx);
    const ready = await follow(link);
    expect(ready.statusCode).toBe(303);
    const invoice = await orderRow(ctx.deps, order.id);
    expect(await pdfText((await download(ctx, String(ready.headers["location"]))).rawPayload)).toContain(invoice.invoice_number!);
  });

  it("answers one 404 page for every link it did not sign, or signed for something else, and writes nothing", async () => {
    const order = await createOrder(ctx.deps, orgId);
    const other = await createOrder(ctx.deps, orgId);
    const noBilling = await createOrder(ctx.deps, orgId, { billing: { name: null, address: null } });
    const unpaid = await createOrder(ctx.deps, orgId, { paid: false });
    const receipt = new URL(linkTo(order.id, "receipt"));
    const signature = receipt.searchParams.get("signature")!;
    const withQuery = (path: string, query: Record<string, string>) => `${path}?${new URLSearchParams(query).toString()}`;
    const expires = receipt.searchParams.get("expires")!;
    const cases: [string, string][] = [
      ["another order's id under this order's signature", withQuery(`/documents/orders/${other.id}/receipt`, { expires, signature })],
      ["the invoice under the receipt's signature", withQuery(`/documents/orders/${order.id}/invoice`, { expires, signature })],
      ["a later expiry", withQuery(receipt.pathname, { expires: String(Number(expires) + 1), signature })],
      [
        "a flipped signature",
        withQuery(receipt.pathname, { expires, signature: `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}` }),
      ],
      ["a signature of another length", withQuery(receipt.pathname, { expires, signature: signature.slice(1) })],
      ["no signature", withQuery(receipt.pathname, { expires })],
      ["no expiry", withQuery(receipt.pathname, { signature })],
      ["a repeated signature", `${receipt.pathname}?expires=${expires}&signature=${signature}&signature=${signature}`],
      ["a non-numeric expiry", withQuery(receipt.pathname, { expires: "soon", signature })],
      ["an expired link", linkTo(order.id, "receipt", new Date(ctx.deps.now().getTime() - 1000))],
      ["a non-UUID id", withQuery("/documents/orders/not-a-uuid/receipt", { expires, signature })],
      ["an unknown document", withQuery(`/documents/orders/${order.id}/credit-note`, { expires, signature })],
      ["an invoice of an order without billing details", linkTo(noBilling.id, "invoice")],
      ["a receipt of an order not paid", linkTo(unpaid.id, "receipt")],
      ["a credit note under a receipt's signature", withQuery(`/documents/credit-notes/${order.id}`, { expires, signature })],
      ["a credit note that does not exist", linkTo(UNKNOWN_ID, "credit_note")],
      ["a credit note of a non-UUID id", withQuery("/documents/credit-notes/not-a-uuid", { expires, signature })],
    ];
    for (const [name, url] of cases) {
      const response = await follow(url);
      expect({ name, status: response.statusCode }).toEqual({ name, status: 404 });
      expect(response.body).toContain("This link is not valid or has expired.");
    }
    for (const id of [order.id, other.id, noBilling.id, unpaid.id]) {
      const row = await orderRow(ctx.deps, id);
      expect({ receipt: row.receipt_requested_at, invoice: row.invoice_requested_at }).toEqual({ receipt: null, invoice: null });
    }
  });
});
