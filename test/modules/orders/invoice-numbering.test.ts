import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shortIdCode } from "../../../src/modules/orders/order-numbers.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrder, createOrganization } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const N = 20;
const sequence = (format: (n: string) => string) => Array.from({ length: N }, (_, i) => format(String(i + 1).padStart(4, "0"))).sort();
const createOrganizationThroughApi = (payload: Record<string, unknown>) =>
  ctx.request({ method: "POST", url: "/v1/organizations/", token: ctx.ownerToken, payload });
const storedNumbering = async (slug: string) =>
  (await ctx.deps.db.selectFrom("organizations").select("invoice_numbering").where("slug", "=", slug).executeTakeFirst())
    ?.invoice_numbering;

describe("order_settings.invoice_numbering on POST /v1/organizations/", () => {
  it("sets per-organization numbering, and customer numbering stays the default", async () => {
    const response = await createOrganizationThroughApi({
      name: "Counted Org",
      slug: "counted-org",
      order_settings: { invoice_numbering: "organization" },
    });
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("organizations:create", 201, response.json());
    expect(await storedNumbering("counted-org")).toBe("organization");
    expect((await createOrganizationThroughApi({ name: "Plain Org", slug: "plain-org" })).statusCode).toBe(201);
    expect(await storedNumbering("plain-org")).toBe("customer");
    expect((await createOrganizationThroughApi({ name: "Null Org", slug: "null-settings-org", order_settings: null })).statusCode).toBe(
      201,
    );
    expect(await storedNumbering("null-settings-org")).toBe("customer");
  });

  describe("bad input", () => {
    const post = (order_settings: unknown) => () => ({
      method: "POST" as const,
      url: "/v1/organizations/",
      token: ctx.ownerToken,
      payload: { name: "Bad Settings", slug: "bad-settings", order_settings },
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "an unknown numbering",
          request: post({ invoice_numbering: "weekly" }),
          status: 422,
          loc: ["body", "order_settings", "invoice_numbering"],
        },
        {
          name: "a numeric numbering",
          request: post({ invoice_numbering: 1 }),
          status: 422,
          loc: ["body", "order_settings", "invoice_numbering"],
        },
        { name: "settings without the numbering", request: post({}), status: 422, loc: ["body", "order_settings", "invoice_numbering"] },
        { name: "settings as a string", request: post("organization"), status: 422, loc: ["body", "order_settings"] },
      ],
      async () => expect(await storedNumbering("bad-settings")).toBeUndefined(),
    );
  });
});

describe("invoice and receipt numbers under concurrent order creation", () => {
  it("numbers one customer's orders 1..N per customer, without gaps or repeats", async () => {
    const org = await createOrganization(ctx.deps, "Per Customer");
    const customer = await createCustomer(ctx.deps, org.id);
    const orders = await Promise.all(Array.from({ length: N }, () => createOrder(ctx.deps, org.id, { customer, product: null })));
    const code = shortIdCode(customer.short_id);
    expect(orders.map((order) => order.invoice_number).sort()).toEqual(sequence((n) => `PER-CUSTOMER-${code}-${n}`));
    expect(orders.map((order) => order.receipt_number).sort()).toEqual(sequence((n) => `RCPT-${code}-${n}`));
  });

  it("numbers an organization-numbered organization's orders 1..N across customers", async () => {
    const created = await createOrganizationThroughApi({
      name: "Org Counted",
      slug: "org-counted",
      order_settings: { invoice_numbering: "organization" },
    });
    const orgId = created.json<{ id: string }>().id;
    const customers = await Promise.all(Array.from({ length: 4 }, () => createCustomer(ctx.deps, orgId)));
    const orders = await Promise.all(
      Array.from({ length: N }, (_, i) => createOrder(ctx.deps, orgId, { customer: customers[i % customers.length]!, product: null })),
    );
    expect(orders.map((order) => order.invoice_number).sort()).toEqual(sequence((n) => `ORG-COUNTED-${n}`));
  });

  it("gives a rolled-back order creation's numbers back: the next order takes them, leaving no gap", async () => {
    const org = await createOrganization(ctx.deps, "Rolled Back");
    const customer = await createCustomer(ctx.deps, org.id);
    const code = shortIdCode(customer.short_id);
    const first = await createOrder(ctx.deps, org.id, { customer, product: null });
    const written: OrderRow[] = [];
    const failure = new Error("the completion failed after the order was written");
    await expect(
      createOrder(ctx.deps, org.id, {
        customer,
        product: null,
        beforeCommit: async (order) => {
          written.push(order);
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
    // The failed creation had taken the next numbers, and left no row.
    expect(written.map((order) => [order.invoice_number, order.receipt_number])).toEqual([
      [`ROLLED-BACK-${code}-0002`, `RCPT-${code}-0002`],
    ]);
    expect(await ctx.deps.db.selectFrom("orders").select("id").where("id", "=", written[0]!.id).executeTakeFirst()).toBeUndefined();
    const next = await createOrder(ctx.deps, org.id, { customer, product: null });
    expect([first, next].map((order) => [order.invoice_number, order.receipt_number])).toEqual([
      [`ROLLED-BACK-${code}-0001`, `RCPT-${code}-0001`],
      [`ROLLED-BACK-${code}-0002`, `RCPT-${code}-0002`],
    ]);
  });
});
