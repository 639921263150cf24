import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrganization,
  createProduct,
  createSubscription,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

let ctx: TestContext;
let org: { id: string; slug: string };
let checkoutToken: string;
let orgToken: string;
/** The buyer's session and subscription (bought through a checkout, so with a saved card). */
let session: string;
let mine: string;
/** Another customer of the same organization, and a customer of another organization. */
let neighbours: string;
let stranger: string;
/** A subscription without any saved payment method. */
let cardless: { session: string; id: string };

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, orgToken],
  } = await openOrganizationContext(["checkouts:write"], ["subscriptions:read"]));
  const plan = await createProduct(ctx.deps, org.id, {
    product: { name: "Portal plan", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 900 }],
  });
  const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "portal@example.com" } });
  mine = checkout.subscription_id;
  session = await createCustomerSessionToken(ctx.deps, checkout.customer_id);
  neighbours = (await createSubscription(ctx.deps, org.id, { product: plan })).id;
  stranger = (await createSubscription(ctx.deps, (await createOrganization(ctx.deps)).id)).id;
  const customer = await createCustomer(ctx.deps, org.id);
  cardless = {
    id: (await createSubscription(ctx.deps, org.id, { customer, product: plan })).id,
    session: await createCustomerSessionToken(ctx.deps, customer.id),
  };
});
afterAll(() => ctx.close());

const url = (id = "") => `/v1/customer-portal/subscriptions/${id}`;
const patch = (id: string, payload: Record<string, unknown>, token = session) =>
  ctx.request({ method: "PATCH", url: url(id), token, payload });

describe("/v1/customer-portal/subscriptions/", () => {
  it("lists and reads only the session customer's subscriptions, with the product's seller and no metadata", async () => {
    const list = await ctx.request({ method: "GET", url: url(), token: session });
    expect(list.statusCode, list.body).toBe(200);
    expectReferenceResponse("customer_portal:subscriptions:list", 200, list.json());
    expect(list.json().items.map((item: { id: string }) => item.id)).toEqual([mine]);
    expect(list.json().pagination).toEqual({ total_count: 1, max_page: 1 });
    const byQuery = await ctx.request({ method: "GET", url: `${url()}?query=portal%20PLAN`, token: session });
    expect(byQuery.json().items).toHaveLength(1);
    expect((await ctx.request({ method: "GET", url: `${url()}?query=nothing-like-it`, token: session })).json().items).toEqual([]);

    const read = await ctx.request({ method: "GET", url: url(mine), token: session });
    expect(read.statusCode).toBe(200);
    expectReferenceResponse("customer_portal:subscriptions:get", 200, read.json());
    expect(read.json()).toMatchObject({ id: mine, status: "active", product: { name: "Portal plan", organization: { slug: org.slug } } });
    expect(read.json().metadata).toBeUndefined();
    expect(read.json().customer).toBeUndefined();
  });

  it("cancels at the period end with the customer's reason, uncancels with a saved card, and treats {} as a no-op", async () => {
    const canceled = await patch(mine, { cancel_at_period_end: true, cancellation_reason: "unused", cancellation_comment: "Not using it" });
    expect(canceled.statusCode, canceled.body).toBe(200);
    expectReferenceResponse("customer_portal:subscriptions:update", 200, canceled.json());
    expect(canceled.json()).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: "unused",
      customer_cancellation_comment: "Not using it",
    });
    expect((await patch(mine, {})).json()).toMatchObject({ cancel_at_period_end: true });
    const uncanceled = await patch(mine, { cancel_at_period_end: false });
    expect(uncanceled.statusCode, uncanceled.body).toBe(200);
    expect(uncanceled.json()).toMatchObject({ cancel_at_period_end: false, customer_cancellation_reason: null });
  });

  it("refuses to uncancel a paid subscription without a saved payment method (409 PaymentMethodRequired)", async () => {
    expect((await patch(cardless.id, { cancel_at_period_end: true }, cardless.session)).statusCode).toBe(200);
    const refused = await patch(cardless.id, { cancel_at_period_end: false }, cardless.session);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: "PaymentMethodRequired",
      detail: "Add a payment method before uncancelling this subscription.",
    });
  });

  it("refuses pausing where the organization's portal settings do not allow it (the default)", async () => {
    const refused = await patch(mine, { pause_at_period_end: true });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe("PauseResumeNotAllowed");
  });

  it("cancels at the period end on DELETE, and a second DELETE is a 403", async () => {
    const deleted = await ctx.request({ method: "DELETE", url: url(mine), token: session });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expectReferenceResponse("customer_portal:subscriptions:cancel", 200, deleted.json());
    expect(deleted.json()).toMatchObject({ status: "active", cancel_at_period_end: true, ended_at: null });
    const again = await ctx.request({ method: "DELETE", url: url(mine), token: session });
    expect(again.statusCode).toBe(403);
    expect(again.json().error).toBe("AlreadyCanceledSubscription");
  });

  const request =
    (
      method: "GET" | "PATCH" | "DELETE",
      id: () => string,
      options: { payload?: Record<string, unknown>; token?: () => string | null } = {},
    ) =>
    () => ({
      method,
      url: url(id()),
      token: options.token ? options.token() : session,
      ...(method === "PATCH" ? { payload: options.payload ?? {} } : {}),
    });
  badInputTable(
    () => ctx.request,
    [
      { name: "a non-UUID id", request: request("GET", () => "sub"), status: 422, loc: ["path", "id"] },
      { name: "an unknown id", request: request("GET", () => randomUUID()), status: 404, error: "ResourceNotFound" },
      { name: "another customer's subscription", request: request("GET", () => neighbours), status: 404, error: "ResourceNotFound" },
      {
        name: "PATCH of another customer's subscription",
        request: request("PATCH", () => neighbours, { payload: { cancel_at_period_end: true } }),
        status: 404,
      },
      { name: "DELETE of another organization's subscription", request: request("DELETE", () => stranger), status: 404 },
      {
        name: "the merchant's field names",
        request: request("PATCH", () => mine, { payload: { customer_cancellation_reason: "unused" } }),
        status: 422,
      },
      {
        name: "a body mixing a cancel and seats",
        request: request("PATCH", () => mine, { payload: { cancel_at_period_end: true, seats: 2 } }),
        status: 422,
      },
      { name: "an organization token", request: request("GET", () => mine, { token: () => orgToken }), status: 401 },
      { name: "no token", request: request("GET", () => mine, { token: () => null }), status: 401 },
      {
        name: "a non-boolean active filter",
        request: () => ({ method: "GET" as const, url: `${url()}?active=sometimes`, token: session }),
        status: 422,
      },
    ],
    async () => {
      const row = await ctx.deps.db
        .selectFrom("subscriptions")
        .select(["status", "ended_at"])
        .where("id", "in", [neighbours, stranger])
        .execute();
      expect(row.every((subscription) => subscription.status === "active" && subscription.ended_at === null)).toBe(true);
    },
  );
});
