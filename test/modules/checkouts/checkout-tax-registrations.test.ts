import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderBillingDocument } from "../../../src/modules/orders/order-documents.render.ts";
import { renderBillingPdf } from "../../../src/documents/pdf.ts";
import { findOrderEmbedded } from "../../../src/modules/orders/orders.repository.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
  registerForTax,
} from "../../helpers/factories.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { FR_ADDRESS, openCheckoutThroughApi } from "./checkout-helpers.ts";

// Tax is collected only where the organization is registered (docs/decisions.md).

let ctx: TestContext;
let unregistered: { orgId: string; token: string; productId: string };
let registered: { orgId: string; token: string; productId: string };

const DE_ADDRESS = { country: "DE", line1: "Unter den Linden 1", city: "Berlin", postal_code: "10117" };
const QC_ADDRESS = { country: "CA", state: "QC", line1: "1 rue Sainte-Catherine", city: "Montréal", postal_code: "H2X 1Z4" };
const ON_ADDRESS = { country: "CA", state: "ON", line1: "1 Yonge St", city: "Toronto", postal_code: "M5E 1E5" };
const GB_ADDRESS = { country: "GB", line1: "1 High St", city: "London", postal_code: "SW1A 1AA" };
const EE_ADDRESS = { country: "EE", line1: "Vabaduse väljak 1", city: "Tallinn", postal_code: "10141" };
const OSS_NUMBER = "FR40303265045";

beforeAll(async () => {
  const opened = await openOrganizationContext(["checkouts:write"]);
  ctx = opened.ctx;
  const product = { prices: [{ amount_type: "fixed" as const, price_amount: 10_000 }] };
  unregistered = {
    orgId: opened.org.id,
    token: opened.tokens[0],
    productId: (await createProduct(ctx.deps, opened.org.id, product)).product.id,
  };
  const org = await createOrganization(ctx.deps);
  await registerForTax(ctx.deps, org.id, [
    { country: "FR", scheme: "eu_oss", number: OSS_NUMBER },
    { country: "CA", number: "123456789RT0001" },
    { country: "CA", state: "CA-QC", number: "1234567890TQ0001" },
  ]);
  registered = {
    orgId: org.id,
    token: await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]),
    productId: (await createProduct(ctx.deps, org.id, product)).product.id,
  };
});
afterAll(() => ctx.close());

const open = (seller: typeof registered, payload: Record<string, unknown> = {}) =>
  openCheckoutThroughApi(ctx, seller.token, { products: [seller.productId], ...payload });
const update = (seller: typeof registered, id: string, payload: Record<string, unknown>) =>
  ctx.request({ method: "PATCH", url: `/v1/checkouts/${id}`, token: seller.token, payload });

describe("checkout tax where the seller is (not) registered", () => {
  it("says null until the country is known, then 0 where the seller is not registered", async () => {
    const session = await open(unregistered);
    expect(session).toMatchObject({ tax_amount: null, total_amount: 10_000 });
    const located = await update(unregistered, session.id, { customer_billing_address: FR_ADDRESS });
    expect(located.statusCode, located.body).toBe(200);
    expectReferenceResponse("checkouts:update", 200, located.json());
    expect(located.json()).toMatchObject({ tax_amount: 0, net_amount: 10_000, total_amount: 10_000, tax_behavior: "exclusive" });
    // A created session with its address at once, too.
    expect(await open(unregistered, { customer_billing_address: FR_ADDRESS })).toMatchObject({ tax_amount: 0, total_amount: 10_000 });
  });

  it("charges each EU member's VAT through the One-Stop Shop, Canada's GST/HST and Québec's QST, and nothing where not registered", async () => {
    const cases = [
      [DE_ADDRESS, 1900],
      [FR_ADDRESS, 2000],
      [QC_ADDRESS, 1498],
      [ON_ADDRESS, 1300],
      [GB_ADDRESS, 0],
    ] as const;
    for (const [address, tax] of cases) {
      const session = await open(registered, { customer_billing_address: address });
      expect(session, address.country).toMatchObject({ tax_amount: tax, total_amount: 10_000 + tax });
    }
  });

  it("charges VAT to a business in the seller's country of establishment (domestic B2B), reverse-charges one elsewhere in the EU", async () => {
    const org = await createOrganization(ctx.deps);
    const writeToken = await createOrganizationToken(ctx.deps, org.id, ["organizations:write", "checkouts:write"]);
    const established = await ctx.request({
      method: "PATCH",
      url: `/v1/organizations/${org.id}/legal-details`,
      token: writeToken,
      payload: { address: FR_ADDRESS, tax_registrations: [{ country: "FR", number: "FR40303265045" }] },
    });
    expect(established.statusCode, established.body).toBe(200);
    const seller = {
      orgId: org.id,
      token: writeToken,
      productId: (await createProduct(ctx.deps, org.id, { prices: [{ amount_type: "fixed", price_amount: 10_000 }] })).product.id,
    };
    const domestic = await open(seller, {
      customer_billing_address: FR_ADDRESS,
      is_business_customer: true,
      customer_tax_id: "FR61954506077",
    });
    expect(domestic).toMatchObject({ tax_amount: 2000, total_amount: 12_000 });
    // A German business buys from the French seller: reverse charge, whatever the seller's registrations.
    const abroad = await open(seller, { customer_billing_address: DE_ADDRESS, is_business_customer: true, customer_tax_id: "DE136695976" });
    expect(abroad).toMatchObject({ tax_amount: 0, total_amount: 10_000 });
    // The seller without a recorded address: the business buyer at home is reverse-charged as before.
    expect(
      (
        await ctx.request({
          method: "PATCH",
          url: `/v1/organizations/${org.id}/legal-details`,
          token: writeToken,
          payload: { address: null },
        })
      ).statusCode,
    ).toBe(200);
    const unknownHome = await open(seller, {
      customer_billing_address: FR_ADDRESS,
      is_business_customer: true,
      customer_tax_id: "FR61954506077",
    });
    expect(unknownHome).toMatchObject({ tax_amount: 0, total_amount: 10_000 });
  });

  it("reprices under the registrations in force at the next change", async () => {
    const session = await open(registered, { customer_billing_address: GB_ADDRESS });
    expect(session.tax_amount).toBe(0);
    const org = await createOrganizationToken(ctx.deps, registered.orgId, ["organizations:write"]);
    const legal = (registrations: unknown[]) =>
      ctx.request({
        method: "PATCH",
        url: `/v1/organizations/${registered.orgId}/legal-details`,
        token: org,
        payload: { tax_registrations: registrations },
      });
    const before = (
      await ctx.request({ method: "GET", url: `/v1/organizations/${registered.orgId}/legal-details`, token: ctx.ownerToken })
    ).json();
    try {
      expect((await legal([...before.tax_registrations, { country: "GB", number: "GB980780684" }])).statusCode).toBe(200);
      const repriced = await update(registered, session.id, { metadata: { again: true } });
      expect(repriced.json()).toMatchObject({ tax_amount: 2000, total_amount: 12_000 });
    } finally {
      expect((await legal(before.tax_registrations)).statusCode).toBe(200);
    }
  });

  it("applies the rate in force on the day of the price: Estonia's 24 % from 1 July 2025", async () => {
    const now = ctx.clock.now();
    try {
      ctx.clock.set(new Date("2025-06-30T23:59:00Z"));
      expect((await open(registered, { customer_billing_address: EE_ADDRESS })).tax_amount).toBe(2200);
      ctx.clock.set(new Date("2025-07-01T00:00:00Z"));
      expect((await open(registered, { customer_billing_address: EE_ADDRESS })).tax_amount).toBe(2400);
    } finally {
      ctx.clock.set(now);
    }
  });
});

describe("the order and its documents state the rate applied", () => {
  const confirmed = async (payload: Record<string, unknown>) => {
    const session = await open(registered, payload);
    const response = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${session.client_secret}/confirm`,
      payload: { customer_email: `buyer-${session.id}@example.com`, customer_name: "Buyer", confirmation_token_id: "tok_visa" },
    });
    expect(response.statusCode, response.body).toBe(200);
    const row = await ctx.deps.db.selectFrom("orders").select("id").where("checkout_id", "=", session.id).executeTakeFirstOrThrow();
    const order = await findOrderEmbedded(ctx.deps.db, row.id, { allowed: null });
    if (!order) throw new Error("no order");
    return { order, invoice: await orderBillingDocument(ctx.deps.db, order, "invoice") };
  };

  it("records the rate on the order and prints it, Québec's 14.975 % included", async () => {
    const german = await confirmed({ customer_billing_address: DE_ADDRESS });
    expect(german.order).toMatchObject({ tax_amount: 1900, tax_rate_basis_points: 1900, tax_reverse_charge: false });
    expect(german.invoice.taxes).toEqual([{ rateBasisPoints: 1900, base: 10_000, amount: 1900 }]);
    expect(german.invoice.seller.taxIds).toContain(OSS_NUMBER);
    expect(await pdfText(await renderBillingPdf(german.invoice))).toContain("19%");

    const quebec = await confirmed({ customer_billing_address: QC_ADDRESS });
    expect(quebec.order).toMatchObject({ tax_amount: 1498, tax_rate_basis_points: 1497.5 });
    expect(await pdfText(await renderBillingPdf(quebec.invoice))).toContain("14.975%");
  });

  it("records no rate where the seller is not registered, and the reverse charge of an EU business with the seller's VAT number", async () => {
    const british = await confirmed({ customer_billing_address: GB_ADDRESS });
    expect(british.order).toMatchObject({ tax_amount: 0, tax_rate_basis_points: null, tax_reverse_charge: false });
    expect(british.invoice.taxes).toEqual([]);
    expect(british.invoice.reverseCharge).toBeNull();

    const business = await confirmed({
      customer_billing_address: FR_ADDRESS,
      is_business_customer: true,
      customer_billing_name: "Client SAS",
      customer_tax_id: "FR61954506077",
    });
    expect(business.order).toMatchObject({ tax_amount: 0, tax_rate_basis_points: 0, tax_reverse_charge: true });
    expect(business.invoice.reverseCharge).toEqual({ sellerVatNumber: OSS_NUMBER, buyerVatNumber: "FR61954506077" });
  });
});
