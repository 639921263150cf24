import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { documentsContext, download, runDocumentJobs } from "../orders/order-documents-helpers.ts";
import { createRefund, paidOrder } from "../refunds/refund-helpers.ts";
import { openPortalSession, signInToPortal } from "./portal-page-helpers.ts";

/** The portal page's credit notes: linked from a refunded, invoiced order, listed, downloaded; nobody else's. */
let ctx: TestContext;
let orgId: string;
let slug: string;
let orderId: string;
let cookie: string;

beforeAll(async () => {
  ctx = await documentsContext();
  const org = await createOrganization(ctx.deps, "Credit Portal Shop");
  orgId = org.id;
  slug = org.slug;
  const [checkoutToken, ordersToken, refundToken] = await Promise.all([
    createOrganizationToken(ctx.deps, orgId, ["checkouts:write"]),
    createOrganizationToken(ctx.deps, orgId, ["orders:read"]),
    createOrganizationToken(ctx.deps, orgId, ["refunds:write"]),
  ]);
  const order = await paidOrder(ctx, orgId, checkoutToken, { price: 2000, country: "US" });
  orderId = order.id;
  expect((await ctx.request({ method: "POST", url: `/v1/orders/${orderId}/invoice`, token: ordersToken })).statusCode).toBe(202);
  await runDocumentJobs(ctx);
  await createRefund(ctx, refundToken, orderId, 750);
  cookie = await signInToPortal(ctx, await openPortalSession(ctx, orgId, order.customer_id));
});
afterAll(() => ctx.close());

const page = (url: string, as = cookie) => ctx.request({ method: "GET", url, headers: { cookie: as } });
const notesUrl = () => `/${slug}/portal/orders/${orderId}/credit-notes`;

describe("credit notes on the portal page", () => {
  it("links a refunded order's credit notes, shows one being prepared, then offers its PDF", async () => {
    const overview = await page(`/${slug}/portal`);
    expect(overview.body).toContain(`href="${notesUrl()}"`);

    const preparing = await page(notesUrl());
    expect(preparing.statusCode).toBe(200);
    expect(preparing.body).toContain("Being prepared");
    const [note] = await ctx.deps.db.selectFrom("credit_notes").selectAll().where("order_id", "=", orderId).execute();
    expect(note).toBeDefined();
    expect(preparing.body).toContain(note!.number);
    expect(preparing.body).toContain("-$7.50");

    await runDocumentJobs(ctx);
    const ready = await page(notesUrl());
    expect(ready.body).not.toContain("Being prepared");
    const href = /<a href="([^"]+)"[^>]*>Download<\/a>/.exec(ready.body)?.[1];
    expect(href).toBeDefined();
    const pdf = await download(ctx, href!.replace(/&amp;/g, "&"));
    expect(pdf.statusCode).toBe(200);
    expect(await pdfText(pdf.rawPayload)).toContain(note!.number);
  });

  it("answers another customer's order, an unknown order and a malformed id with the 404 page", async () => {
    const otherCookie = await signInToPortal(ctx, await openPortalSession(ctx, orgId, (await createCustomer(ctx.deps, orgId)).id));
    const otherCustomer = await page(notesUrl(), otherCookie);
    expect(otherCustomer.statusCode).toBe(404);
    expect(otherCustomer.body).not.toContain("CN-");
    for (const id of ["3f2b1c4d-1111-4222-8333-123456789abc", "nope"]) {
      expect((await page(`/${slug}/portal/orders/${id}/credit-notes`)).statusCode, id).toBe(404);
    }
  });

  it("shows no credit-note link for an order without refunds", async () => {
    const otherCookie = await signInToPortal(ctx, await openPortalSession(ctx, orgId, (await createCustomer(ctx.deps, orgId)).id));
    expect((await page(`/${slug}/portal`, otherCookie)).body).not.toContain("/credit-notes");
  });
});
