import { createPolar } from "@polar-sh/sdk/2026-04";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, listen, type TestContext } from "../helpers/context.ts";
import {
  createCheckout,
  createCustomer,
  createCustomerSessionToken,
  createDiscount,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "../helpers/factories.ts";

/** The official client, unchanged, pointed at a listening server. */
let ctx: TestContext;
let baseUrl: string;

beforeAll(async () => {
  ctx = await createTestContext();
  baseUrl = await listen(ctx);
});
afterAll(() => ctx.close());

describe("official SDK @polar-sh/sdk/2026-04", () => {
  it("reads a checkout session and an organization", async () => {
    const org = await createOrganization(ctx.deps);
    const product = await createProduct(ctx.deps, org.id, { benefits: [{ type: "license_keys", description: "Key" }] });
    const discount = await createDiscount(ctx.deps, org.id, {
      type: "percentage",
      basis_points: 5000,
      duration: "repeating",
      duration_in_months: 2,
    });
    const checkout = await createCheckout(ctx.deps, org.id, { products: [product], discount });
    const token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:read", "organizations:read"]);
    const polar = createPolar({ accessToken: token, baseUrl });

    const read = await polar.checkouts.get(checkout.id);
    expect(read.id).toBe(checkout.id);
    expect(read.amount).toBe(2500);
    expect(read.discount).toMatchObject({ basis_points: 5000, duration_in_months: 2 });
    expect(read.products[0]?.benefits[0]?.type).toBe("license_keys");

    const organization = await polar.organizations.get(org.id);
    expect(organization.slug).toBe(org.slug);
  });

  it("surfaces our 404 and 401 as the SDK's errors", async () => {
    const org = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:read"]);
    await expect(createPolar({ accessToken: token, baseUrl }).checkouts.get("3f2b1c4d-1111-4222-8333-123456789abc")).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(
      createPolar({ accessToken: "polar_oat_wrong", baseUrl }).checkouts.get("3f2b1c4d-1111-4222-8333-123456789abc"),
    ).rejects.toMatchObject({ statusCode: 401 });
  });
});

describe("official SDK: metadata filters", () => {
  it("lists customers and products by metadata, sent as the SDK's deep object", async () => {
    const org = await createOrganization(ctx.deps);
    const gold = await createCustomer(ctx.deps, org.id, { metadata: JSON.stringify({ tier: "gold" }) });
    await createCustomer(ctx.deps, org.id, { metadata: JSON.stringify({ tier: "silver" }) });
    const { product } = await createProduct(ctx.deps, org.id, { product: { metadata: JSON.stringify({ sku: "A-1" }) } });
    await createProduct(ctx.deps, org.id, { product: { metadata: JSON.stringify({ sku: "B-2" }) } });
    const polar = createPolar({
      accessToken: await createOrganizationToken(ctx.deps, org.id, ["customers:read", "products:read"]),
      baseUrl,
    });

    const customers = await polar.customers.list({ metadata: { tier: "gold" } });
    expect(customers.items.map((customer) => customer.id)).toEqual([gold.id]);
    const products = await polar.products.list({ metadata: { sku: "A-1" } });
    expect(products.items.map((item) => item.id)).toEqual([product.id]);
  });
});

describe("official SDK: event trees", () => {
  it("ingests a parent and a child, then lists by depth, below the parent, and by query", async () => {
    const org = await createOrganization(ctx.deps);
    const polar = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["events:read", "events:write"]), baseUrl });
    const timestamp = "2026-03-01T12:00:00.000Z";
    await polar.events.ingest({
      events: [
        { name: "run", external_customer_id: "c", external_id: "run-1", timestamp },
        { name: "step", external_customer_id: "c", parent_id: "run-1", timestamp },
      ],
    });

    const roots = await polar.events.list({ depth: 0 });
    expect("pagination" in roots && roots.items.map((event) => event.name)).toEqual(["run"]);
    const below = await polar.events.list({ parent_id: roots.items[0]!.id, depth: 1 });
    expect(below.items.map((event) => event.name)).toEqual(["step"]);
    const found = await polar.events.list({ query: "STE" });
    expect(found.items.map((event) => event.name)).toEqual(["step"]);
  });

  it("lists event names with their occurrences, sorted and filtered", async () => {
    const org = await createOrganization(ctx.deps);
    const polar = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["events:write"]), baseUrl });
    const at = (minute: number) => `2026-03-01T12:0${minute}:00.000Z`;
    await polar.events.ingest({
      events: [
        { name: "build", external_customer_id: "c", timestamp: at(1) },
        { name: "build", external_customer_id: "c", timestamp: at(3) },
        { name: "deploy", external_customer_id: "d", timestamp: at(2) },
      ],
    });

    const page = await polar.events.listNames({ sorting: ["-occurrences"] });
    expect(page.items.map(({ name, occurrences, source }) => ({ name, occurrences, source }))).toEqual([
      { name: "build", occurrences: 2, source: "user" },
      { name: "deploy", occurrences: 1, source: "user" },
    ]);
    expect(page.items[0]?.first_seen).toBe(at(1));
    expect(page.items[0]?.last_seen).toBe(at(3));
    expect(page.pagination).toEqual({ total_count: 2, max_page: 1 });
    const filtered = await polar.events.listNames({ external_customer_id: "d", query: "DEP", limit: 1 });
    expect(filtered.items.map((item) => item.name)).toEqual(["deploy"]);
  });
});

describe("official SDK: orders", () => {
  it("lists with filters and sorting, gets, updates, and requests an invoice", async () => {
    const org = await createOrganization(ctx.deps);
    const { product } = await createProduct(ctx.deps, org.id);
    const discount = await createDiscount(ctx.deps, org.id);
    const small = await createOrder(ctx.deps, org.id, { product, discount, amounts: { subtotal: 1000, discount: 100 } });
    const large = await createOrder(ctx.deps, org.id, { product, amounts: { subtotal: 9000 } });
    await createOrder(ctx.deps, org.id, { product, values: { status: "refunded" } });
    const polar = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["orders:read", "orders:write"]), baseUrl });

    const page = await polar.orders.list({ status: "paid", product_id: [product.id], sorting: ["-amount"], limit: 10 });
    expect(page.items.map((order) => order.id)).toEqual([large.id, small.id]);
    expect(page.pagination).toEqual({ total_count: 2, max_page: 1 });

    const read = await polar.orders.get(small.id);
    expect(read.discount?.id).toBe(discount.id);
    expect(read.customer.id).toBe(small.customer_id);
    expect(read.items.reduce((sum, item) => sum + item.amount, 0)).toBe(1000);

    const updated = await polar.orders.update(small.id, { billing_name: "SDK Org Buyer" });
    expect(updated.billing_name).toBe("SDK Org Buyer");
    await polar.orders.generateInvoice(small.id);
    await expect(polar.orders.invoice(small.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(polar.orders.update(small.id, { billing_name: "Too late" })).rejects.toMatchObject({ statusCode: 409 });
  });
});

describe("official SDK: customer-portal orders", () => {
  it("lists with filters and sorting, gets and updates the session customer's orders", async () => {
    const org = await createOrganization(ctx.deps);
    const customer = await createCustomer(ctx.deps, org.id);
    const { product } = await createProduct(ctx.deps, org.id, {
      product: { name: "SDK Product" },
      benefits: [{ type: "custom", description: "Perk" }],
    });
    const cheap = await createOrder(ctx.deps, org.id, { customer, product, amounts: { subtotal: 1000 } });
    const dear = await createOrder(ctx.deps, org.id, { customer, product, amounts: { subtotal: 5000 } });
    await createOrder(ctx.deps, org.id, { product });
    const polar = createPolar({ accessToken: await createCustomerSessionToken(ctx.deps, customer.id), baseUrl });

    const page = await polar.customerPortal.orders.list({
      product_id: [product.id],
      product_billing_type: "one_time",
      query: "sdk",
      sorting: ["-amount"],
      limit: 5,
    });
    expect(page.items.map((order) => order.id)).toEqual([dear.id, cheap.id]);
    expect(page.pagination).toEqual({ total_count: 2, max_page: 1 });

    const read = await polar.customerPortal.orders.get(cheap.id);
    expect(read.product?.benefits[0]?.type).toBe("custom");
    expect(read.product?.organization.id).toBe(org.id);

    const updated = await polar.customerPortal.orders.update(cheap.id, { billing_name: "SDK Buyer" });
    expect(updated.billing_name).toBe("SDK Buyer");
    await expect(polar.customerPortal.orders.get("3f2b1c4d-1111-4222-8333-123456789abc")).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe("official SDK: subscriptions", () => {
  it("lists with filters and sorting, and gets one with its customer, product and prices", async () => {
    const org = await createOrganization(ctx.deps);
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "SDK plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1200 }],
    });
    const customer = await createCustomer(ctx.deps, org.id, { external_id: "sdk-sub" });
    const first = await createSubscription(ctx.deps, org.id, { customer, product: plan });
    ctx.clock.advance(1000);
    const second = await createSubscription(ctx.deps, org.id, { product: plan });
    const polar = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["subscriptions:read"]), baseUrl });

    const page = await polar.subscriptions.list({ status: ["active"], sorting: ["started_at"], limit: 10 });
    expect(page.items.map((item) => item.id)).toEqual([first.id, second.id]);
    const mine = await polar.subscriptions.list({ external_customer_id: "sdk-sub" });
    expect(mine.items.map((item) => item.id)).toEqual([first.id]);

    const read = await polar.subscriptions.get(first.id);
    expect(read).toMatchObject({
      id: first.id,
      status: "active",
      amount: 1200,
      customer: { id: customer.id },
      product: { name: "SDK plan" },
    });
    expect(read.prices[0]).toMatchObject({ amount_type: "fixed", price_amount: 1200 });
    expect(read.current_period_end).toBe(first.current_period_end.toISOString());
    await expect(polar.subscriptions.get("3f2b1c4d-1111-4222-8333-123456789abc")).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe("official SDK: subscriptions, merchant changes and the customer portal", () => {
  it("updates and revokes as the merchant; lists, reads, cancels and uncancels as the customer", async () => {
    const org = await createOrganization(ctx.deps);
    const plan = await createProduct(ctx.deps, org.id, {
      product: { name: "SDK portal plan", recurring_interval: "month", recurring_interval_count: 1 },
    });
    const customer = await createCustomer(ctx.deps, org.id);
    const first = await createSubscription(ctx.deps, org.id, { customer, product: plan });
    const second = await createSubscription(ctx.deps, org.id, { customer, product: plan });
    const merchant = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["subscriptions:write"]), baseUrl });
    const updated = await merchant.subscriptions.update(first.id, { metadata: { plan: "sdk" } });
    expect(updated.metadata).toEqual({ plan: "sdk" });
    const revoked = await merchant.subscriptions.revoke(second.id);
    expect(revoked).toMatchObject({ id: second.id, status: "canceled" });

    const portal = createPolar({ accessToken: await createCustomerSessionToken(ctx.deps, customer.id), baseUrl });
    const page = await portal.customerPortal.subscriptions.list({ sorting: ["-started_at"] });
    expect(page.items.map((item) => item.id).sort()).toEqual([first.id, second.id].sort());
    const read = await portal.customerPortal.subscriptions.get(first.id);
    expect(read.product.organization.id).toBe(org.id);
    const canceled = await portal.customerPortal.subscriptions.update(first.id, {
      cancel_at_period_end: true,
      cancellation_reason: "unused",
    });
    expect(canceled).toMatchObject({ cancel_at_period_end: true, customer_cancellation_reason: "unused" });
    await expect(portal.customerPortal.subscriptions.cancel(first.id)).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe("official SDK: saved payment methods and customer retries", () => {
  it("adds, lists, sets the default, deletes, and the organization lists them with is_default", async () => {
    const org = await createOrganization(ctx.deps);
    const customer = await createCustomer(ctx.deps, org.id, { external_id: "sdk-pm" });
    const portal = createPolar({ accessToken: await createCustomerSessionToken(ctx.deps, customer.id), baseUrl });

    const added = await portal.customerPortal.customers.addPaymentMethod({
      confirmation_token_id: "tok_visa",
      set_default: true,
      return_url: "https://shop.test",
    });
    if (added.status !== "succeeded") throw new Error("the sandbox never asks for a further step");
    expect(added.payment_method).toMatchObject({ type: "card", method_metadata: { brand: "visa", last4: "4242" } });
    ctx.clock.advance(1000);
    const second = await portal.customerPortal.customers.addPaymentMethod({
      confirmation_token_id: "tok_mastercard",
      set_default: false,
      return_url: "https://shop.test",
    });
    if (second.status !== "succeeded") throw new Error("the sandbox never asks for a further step");
    const page = await portal.customerPortal.customers.listPaymentMethods({ limit: 10 });
    expect(page.items.map((item) => item.id)).toEqual([second.payment_method.id, added.payment_method.id]);

    const merchant = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["customers:read"]), baseUrl });
    const listed = await merchant.customers.listPaymentMethods(customer.id);
    expect(listed.items.map((item) => [item.id, item.is_default])).toEqual([
      [second.payment_method.id, false],
      [added.payment_method.id, true],
    ]);
    expect((await merchant.customers.listPaymentMethodsExternal("sdk-pm")).pagination.total_count).toBe(2);

    await portal.customerPortal.customers.deletePaymentMethod(second.payment_method.id);
    expect((await portal.customerPortal.customers.listPaymentMethods()).items).toHaveLength(1);
    await expect(
      portal.customerPortal.customers.addPaymentMethod({
        confirmation_token_id: "tok_chargeDeclined",
        set_default: false,
        return_url: "https://x",
      }),
    ).rejects.toMatchObject({ statusCode: 400 });
    await expect(
      portal.customerPortal.customers.confirmPaymentMethod({ setup_intent_id: "seti_1", set_default: false }),
    ).rejects.toMatchObject({
      statusCode: 422,
    });
  });

  it("reads an order's payment status and retries it", async () => {
    const org = await createOrganization(ctx.deps);
    const customer = await createCustomer(ctx.deps, org.id);
    const subscription = await createSubscription(ctx.deps, org.id, { customer });
    const order = await createOrder(ctx.deps, org.id, {
      customer,
      values: {
        status: "pending",
        subscription_id: subscription.id,
        next_payment_attempt_at: new Date(ctx.clock.now().getTime() + 86_400_000),
      },
    });
    const portal = createPolar({ accessToken: await createCustomerSessionToken(ctx.deps, customer.id), baseUrl });

    expect(await portal.customerPortal.orders.getPaymentStatus(order.id)).toEqual({ status: "no_payment", error: null });
    const declined = await portal.customerPortal.orders.confirmRetryPayment(order.id, { confirmation_token_id: "tok_chargeDeclined" });
    expect(declined).toEqual({ status: "failed", client_secret: null, error: "Your card was declined." });
    ctx.clock.advance(1000);
    const paid = await portal.customerPortal.orders.confirmRetryPayment(order.id, { confirmation_token_id: "tok_visa" });
    expect(paid.status).toBe("succeeded");
    expect((await portal.customerPortal.orders.getPaymentStatus(order.id)).status).toBe("succeeded");
  });
});

describe("official SDK: customer state", () => {
  it("reads a customer's state by ID and by external ID", async () => {
    const org = await createOrganization(ctx.deps);
    const customer = await createCustomer(ctx.deps, org.id, { external_id: "sdk-state" });
    const active = await createSubscription(ctx.deps, org.id, { customer });
    ctx.clock.advance(1000);
    const trialing = await createSubscription(ctx.deps, org.id, { customer, trialEnd: new Date(ctx.clock.now().getTime() + 86_400_000) });
    const polar = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["customers:read"]), baseUrl });

    const state = await polar.customers.getState(customer.id);
    expect(state).toMatchObject({ id: customer.id, type: "individual", granted_benefits: [], active_meters: [] });
    expect(state.active_subscriptions.map((s) => [s.id, s.status])).toEqual([
      [active.id, "active"],
      [trialing.id, "trialing"],
    ]);
    expect(state.active_subscriptions[1]?.trial_end).toBe(trialing.trial_end?.toISOString());
    expect(await polar.customers.getStateExternal("sdk-state")).toEqual(state);
    await expect(polar.customers.getState("3f2b1c4d-1111-4222-8333-123456789abc")).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe("official SDK: custom fields and checkout links", () => {
  it("creates, lists, gets, updates and deletes custom fields", async () => {
    const org = await createOrganization(ctx.deps);
    const polar = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["custom_fields:write"]), baseUrl });

    const select = await polar.customFields.create({
      type: "select",
      slug: "plan",
      name: "Plan",
      properties: { options: [{ value: "a", label: "A" }] },
    });
    expect(select.type).toBe("select");
    const number = await polar.customFields.create({ type: "number", slug: "seats", name: "Seats", properties: { ge: 1, le: 9 } });
    expect(number.type === "number" && number.properties.le).toBe(9);

    const page = await polar.customFields.list({ type: ["number", "select"], sorting: ["-slug"] });
    expect(page.items.map((field) => field.slug)).toEqual(["seats", "plan"]);
    expect((await polar.customFields.get(select.id)).slug).toBe("plan");
    const renamed = await polar.customFields.update(number.id, { type: "number", slug: "team-size", properties: { ge: 2 } });
    expect(renamed).toMatchObject({ slug: "team-size", properties: { ge: 2 } });
    await polar.customFields.delete(number.id);
    await expect(polar.customFields.get(number.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("creates, lists, gets, updates and deletes checkout links", async () => {
    const org = await createOrganization(ctx.deps);
    const { product, prices } = await createProduct(ctx.deps, org.id, { product: { name: "Linked" } });
    const discount = await createDiscount(ctx.deps, org.id);
    const polar = createPolar({ accessToken: await createOrganizationToken(ctx.deps, org.id, ["checkout_links:write"]), baseUrl });

    const link = await polar.checkoutLinks.create({
      payment_processor: "stripe",
      product_price_id: prices[0]!.id,
      discount_id: discount.id,
    });
    expect(link.products.map((p) => p.id)).toEqual([product.id]);
    expect(link.discount?.id).toBe(discount.id);
    expect(link.url).toContain(`/v1/checkout-links/${link.client_secret}/redirect`);

    const page = await polar.checkoutLinks.list({ product_id: [product.id] });
    expect(page.items.map((item) => item.id)).toEqual([link.id]);
    expect((await polar.checkoutLinks.get(link.id)).id).toBe(link.id);
    const updated = await polar.checkoutLinks.update(link.id, { label: "Shared", discount_id: null });
    expect(updated).toMatchObject({ label: "Shared", discount: null });
    await polar.checkoutLinks.delete(link.id);
    await expect(polar.checkoutLinks.get(link.id)).rejects.toMatchObject({ statusCode: 404 });
  });
});
