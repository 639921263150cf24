import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hundredths } from "../../../src/modules/orders/orders.export.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrder, createOrganization, createProduct, openOrganizationContext } from "../../helpers/factories.ts";

// GET /v1/orders/export: the hosted service's columns and formats, one row per order the caller may see.

let ctx: TestContext;
let orgId: string;
let readToken: string;
let otherScopeToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken, otherScopeToken],
  } = await openOrganizationContext(["orders:read"], ["products:read"]));
  const foreignOrgId = (await createOrganization(ctx.deps)).id;
  await createOrder(ctx.deps, foreignOrgId, { values: { created_at: new Date("2031-01-15T12:00:00Z") } });
});
afterAll(() => ctx.close());

const exportCsv = (query = "", token: string | null = readToken) => ctx.request({ method: "GET", url: `/v1/orders/export${query}`, token });

describe("hundredths: minor units as the hosted service's Python prints amount / 100", () => {
  it.each([
    [0, "0.0"],
    [1, "0.01"],
    [10, "0.1"],
    [99, "0.99"],
    [100, "1.0"],
    [105, "1.05"],
    [1_250, "12.5"],
    [1_234, "12.34"],
    [-5, "-0.05"],
    [-1_200, "-12.0"],
    [123_456_789_012, "1234567890.12"],
  ])("%i → %s", (amount, text) => expect(hundredths(amount)).toBe(text));
});

describe("GET /v1/orders/export", () => {
  it("writes the default seven columns, newest first, dates in UTC as isoformat, amounts / 100", async () => {
    const customer = await createCustomer(ctx.deps, orgId, { email: "ada@example.com", name: "Ada" });
    const product = (await createProduct(ctx.deps, orgId, { product: { name: "Pro" } })).product;
    const older = await createOrder(ctx.deps, orgId, {
      customer,
      product,
      amounts: { subtotal: 1_000, discount: 250, tax: 150 },
      values: { created_at: new Date("2031-03-01T09:30:00.000Z") },
    });
    const newer = await createOrder(ctx.deps, orgId, {
      customer,
      product,
      amounts: { subtotal: 4_900, tax: 0 },
      values: { created_at: new Date("2031-03-02T23:15:07.250Z"), status: "refunded", refunded_amount: 4_900, description: "=SUM(A1)" },
    });

    const response = await exportCsv(`?created_after=2031-02-01T00:00:00Z&created_before=2031-04-01T00:00:00Z`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers["content-type"]).toContain("text/csv");
    expect(response.headers["content-disposition"]).toBe('attachment; filename="polar-orders-2031-02-01-2031-04-01.csv"');
    expect(response.body).toBe(
      [
        "Email,Created At,Product,Net Amount,Currency,Status,Invoice number",
        // A formula-like description is defused.
        `ada@example.com,2031-03-02T23:15:07.250000+00:00,'=SUM(A1),49.0,usd,refunded,${newer.invoice_number}`,
        `ada@example.com,2031-03-01T09:30:00+00:00,Pro,7.5,usd,paid,${older.invoice_number}`,
        "",
      ].join("\n"),
    );
  });

  it("writes the chosen columns in the chosen order, dates in the chosen zone (DST included)", async () => {
    const customer = await createCustomer(ctx.deps, orgId, { email: "zoe@example.com", name: "Zoé" });
    const summer = await createOrder(ctx.deps, orgId, {
      customer,
      amounts: { subtotal: 2_000, discount: 500, tax: 300 },
      values: { created_at: new Date("2032-07-01T22:30:00Z"), refunded_amount: 100, status: "partially_refunded" },
    });
    const winter = await createOrder(ctx.deps, orgId, {
      customer,
      amounts: { subtotal: 2_000 },
      values: { created_at: new Date("2032-01-10T23:30:00Z") },
    });
    const columns = [
      "total_amount",
      "created_at",
      "customer_name",
      "billing_name",
      "billing_country",
      "subtotal_amount",
      "discount_amount",
      "tax_amount",
      "refunded_amount",
      "billing_reason",
    ];
    const query = `?timezone=Europe/Paris&created_after=2032-01-01T00:00:00%2B01:00&created_before=2032-12-31T00:00:00Z&${columns.map((c) => `columns=${c}`).join("&")}`;
    const response = await exportCsv(query);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers["content-disposition"]).toBe('attachment; filename="polar-orders-2032-01-01-2032-12-31.csv"');
    expect(response.body).toBe(
      [
        "Total,Created At,Customer Name,Billing Name,Billing Country,Subtotal,Discount,Tax,Refunded Amount,Billing Reason",
        `18.0,2032-07-02T00:30:00+02:00,Zoé,Ada Buyer,FR,20.0,5.0,3.0,1.0,purchase`,
        `20.0,2032-01-11T00:30:00+01:00,Zoé,Ada Buyer,FR,20.0,0.0,0.0,0.0,purchase`,
        "",
      ].join("\n"),
    );
    expect([summer.id, winter.id]).toHaveLength(2);
  });

  it("filters by status and product, and sees only the caller's organization", async () => {
    const product = (await createProduct(ctx.deps, orgId, { product: { name: "Filtered" } })).product;
    const pending = await createOrder(ctx.deps, orgId, {
      product,
      values: { created_at: new Date("2033-05-01T00:00:00Z"), status: "pending" },
    });
    await createOrder(ctx.deps, orgId, { product, values: { created_at: new Date("2033-05-02T00:00:00Z") } });
    const response = await exportCsv(`?product_id=${product.id}&status=pending&columns=invoice_number`);
    expect(response.body).toBe(`Invoice number\n${pending.invoice_number}\n`);
    // The foreign organization's order of 2031-01-15 is never in this organization's export.
    const january = await exportCsv(`?created_after=2031-01-01T00:00:00Z&created_before=2031-02-01T00:00:00Z`);
    expect(january.body).toBe("Email,Created At,Product,Net Amount,Currency,Status,Invoice number\n");
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID organization_id",
        request: () => ({ method: "GET", url: "/v1/orders/export?organization_id=nope", token: readToken }),
        status: 422,
        loc: ["query", "organization_id"],
      },
      {
        name: "a non-UUID product_id",
        request: () => ({ method: "GET", url: "/v1/orders/export?product_id=1", token: readToken }),
        status: 422,
        loc: ["query", "product_id"],
      },
      {
        name: "an unknown status",
        request: () => ({ method: "GET", url: "/v1/orders/export?status=lost", token: readToken }),
        status: 422,
        loc: ["query", "status"],
      },
      {
        name: "an unknown column",
        request: () => ({ method: "GET", url: "/v1/orders/export?columns=password", token: readToken }),
        status: 422,
        loc: ["query", "columns"],
      },
      {
        name: "a date that is not one",
        request: () => ({ method: "GET", url: "/v1/orders/export?created_after=yesterday", token: readToken }),
        status: 422,
        loc: ["query", "created_after"],
      },
      {
        name: "an unknown time zone",
        request: () => ({ method: "GET", url: "/v1/orders/export?timezone=Mars/Olympus", token: readToken }),
        status: 422,
        loc: ["query", "timezone"],
      },
      {
        name: "an overlong time zone",
        request: () => ({ method: "GET", url: `/v1/orders/export?timezone=${"A".repeat(65)}`, token: readToken }),
        status: 422,
        loc: ["query", "timezone"],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/orders/export" }), status: 401, error: "Unauthorized" },
      {
        name: "a wrong token",
        request: () => ({ method: "GET", url: "/v1/orders/export", token: "polar_oat_wrong" }),
        status: 401,
        error: "invalid_token",
      },
      {
        name: "a token without an orders scope",
        request: () => ({ method: "GET", url: "/v1/orders/export", token: otherScopeToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});
