import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskName } from "../../../src/jobs/task-names.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrder,
  createOrganization,
  createOrganizationToken,
} from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import {
  documentRouteBadInputs,
  documentsContext,
  download,
  jobsWithKey,
  orderRow,
  orderUpdatedEvents,
  runDocumentJobs,
} from "../orders/order-documents-helpers.ts";

let ctx: TestContext;
let orgId: string;
let session: string;
let neighbourSession: string;
let orgToken: string;
let own: OrderRow;
let neighbours: OrderRow;
let foreign: OrderRow;

beforeAll(async () => {
  ctx = await documentsContext();
  orgId = (await createOrganization(ctx.deps, "Portal Shop")).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  const customer = await createCustomer(ctx.deps, orgId, { name: "Katherine Johnson" });
  const neighbour = await createCustomer(ctx.deps, orgId);
  session = await createCustomerSessionToken(ctx.deps, customer.id);
  neighbourSession = await createCustomerSessionToken(ctx.deps, neighbour.id);
  orgToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  own = await createOrder(ctx.deps, orgId, {
    customer,
    billing: {
      name: "Johnson Orbital LLC",
      address: { line1: "1 Launch Pad", line2: null, postal_code: "23666", city: "Hampton", state: "US-VA", country: "US" },
    },
  });
  neighbours = await createOrder(ctx.deps, orgId, { customer: neighbour });
  foreign = await createOrder(ctx.deps, otherOrgId);
});
afterAll(() => ctx.close());

const invoiceUrl = (id: string) => `/v1/customer-portal/orders/${id}/invoice`;
const receiptUrl = (id: string) => `/v1/customer-portal/orders/${id}/receipt`;

describe("POST and GET /v1/customer-portal/orders/{id}/invoice", () => {
  it("lets the customer request and download the invoice of their own order", async () => {
    const before = await ctx.request({ method: "GET", url: invoiceUrl(own.id), token: session });
    expect(before.statusCode).toBe(404);
    expect(before.json()).toEqual({ error: "InvoiceDoesNotExist", detail: `No invoice exists for order ${own.id}.` });

    const requested = await ctx.request({ method: "POST", url: invoiceUrl(own.id), token: session });
    expect(requested.statusCode, requested.body).toBe(202);
    expect(requested.body).toBe("null");
    expectReferenceResponse("customer_portal:orders:generate_invoice", 202, requested.json());
    await runDocumentJobs(ctx);
    expect(await orderUpdatedEvents(ctx.deps, own.id)).toEqual([
      expect.objectContaining({ is_invoice_generated: true, invoice_number: own.invoice_number }),
    ]);

    const link = await ctx.request({ method: "GET", url: invoiceUrl(own.id), token: session });
    expect(link.statusCode, link.body).toBe(200);
    expectReferenceResponse("customer_portal:orders:invoice", 200, link.json());
    const pdf = await download(ctx, link.json<{ url: string }>().url);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    const text = await pdfText(pdf.rawPayload);
    for (const expected of [own.invoice_number!, "Portal Shop", "Johnson Orbital LLC", "1 Launch Pad", "$10.00"])
      expect(text).toContain(expected);
    // The organization sees the same invoice.
    expect((await ctx.request({ method: "GET", url: `/v1/orders/${own.id}/invoice`, token: orgToken })).statusCode).toBe(200);
  });

  it("refuses with the anchor's errors, as the organization route does", async () => {
    const voided = await createOrder(ctx.deps, orgId, { customer: await customerOf(own), values: { status: "void" } });
    const refused = await ctx.request({ method: "POST", url: invoiceUrl(voided.id), token: session });
    expect(refused.statusCode).toBe(409);
    expectReferenceResponse("customer_portal:orders:generate_invoice", 409, refused.json());
    const unbilled = await createOrder(ctx.deps, orgId, { customer: await customerOf(own), billing: { name: null, address: null } });
    const missing = await ctx.request({ method: "POST", url: invoiceUrl(unbilled.id), token: session });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ error: "MissingInvoiceBillingDetails" });
    expectReferenceResponse("customer_portal:orders:generate_invoice", 422, missing.json());
  });
});

const customerOf = (order: OrderRow) =>
  ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", order.customer_id).executeTakeFirstOrThrow();

describe("bad input", () => {
  // The neighbour's order under the neighbour's session; the other customer's session must not
  // reach it, nor may either reach another organization's order.
  const tokens = () => ({ read: neighbourSession, other: session, noScope: orgToken });
  const orders = () => ({ own: neighbours.id, foreign: foreign.id });
  const cases = (method: "GET" | "POST", url: (id: string) => string) => documentRouteBadInputs(method, url, tokens, orders, 401);
  const untouched = async () => {
    for (const order of [neighbours, foreign]) {
      const row = await orderRow(ctx.deps, order.id);
      expect([row.invoice_requested_at, row.receipt_requested_at]).toEqual([null, null]);
      expect(await jobsWithKey(ctx.deps, `${TaskName.orderInvoice}:${order.id}`)).toEqual([]);
      expect(await jobsWithKey(ctx.deps, `${TaskName.orderReceipt}:${order.id}`)).toEqual([]);
    }
  };
  describe("POST invoice", () => badInputTable(() => ctx.request, cases("POST", invoiceUrl), untouched));
  describe("GET invoice", () => badInputTable(() => ctx.request, cases("GET", invoiceUrl), untouched));
  describe("GET receipt", () => badInputTable(() => ctx.request, cases("GET", receiptUrl), untouched));
});
