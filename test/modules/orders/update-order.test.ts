import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createOrder,
  createOrganization,
  createOrganizationToken,
  type OrderOptions,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import type { OrderRow } from "../../../src/modules/orders/orders.table.ts";
import { orderUpdatedEvents } from "./order-fixtures.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [writeToken],
  } = await openOrganizationContext(["orders:write"]));
});
afterAll(() => ctx.close());

const US_NY = { line1: "1 Main St", line2: null, postal_code: "10001", city: "New York", state: "US-NY", country: "US" as const };
const newOrder = (options: OrderOptions = {}) => createOrder(ctx.deps, orgId, options);
const patch = (id: string, payload: unknown, token = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/orders/${id}`, token, payload: payload as Record<string, unknown> });

/** PATCH that must succeed: the response is the full order and exactly one `order.updated` carries it. */
async function accepted(id: string, payload: unknown) {
  const before = (await orderUpdatedEvents(ctx, id)).length;
  const response = await patch(id, payload);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json();
  expectReferenceResponse("orders:update", 200, body);
  const events = await orderUpdatedEvents(ctx, id);
  expect(events).toHaveLength(before + 1);
  const data = events.at(-1)!.data;
  expectReferenceResponse("orders:get", 200, data);
  expect(data).toEqual(body);
  return body;
}

describe("PATCH /v1/orders/{id}", () => {
  it("writes the billing name alone, leaving the address as it was", async () => {
    const order = await newOrder();
    const body = await accepted(order.id, { billing_name: "Grace Hopper" });
    expect(body).toMatchObject({ id: order.id, billing_name: "Grace Hopper", billing_address: order.billing_address });
    expect(body.modified_at).toBe(ctx.clock.now().toISOString());
    const row = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      billing_name: "Grace Hopper",
      billing_address: order.billing_address,
      invoice_number: order.invoice_number,
    });
  });

  it("sets an address on an order without one, normalizing a US state", async () => {
    const order = await newOrder({ billing: { name: "Ada", address: null } });
    const body = await accepted(order.id, {
      billing_address: { country: "US", state: "ny", line1: "1 Main St", city: "New York", postal_code: "10001" },
    });
    expect(body.billing_address).toEqual(US_NY);
    expect(body.billing_name).toBe("Ada");
  });

  it("writes explicit nulls, and only the fields sent", async () => {
    const order = await newOrder();
    const cleared = await accepted(order.id, { billing_name: null });
    expect(cleared).toMatchObject({ billing_name: null, billing_address: order.billing_address });
    const noAddress = await accepted(order.id, { billing_address: null });
    expect(noAddress).toMatchObject({ billing_name: null, billing_address: null });
    // With no address left, any country may be set again.
    const relocated = await accepted(order.id, { billing_address: { country: "DE", city: "Berlin" } });
    expect(relocated.billing_address).toEqual({ line1: null, line2: null, postal_code: null, city: "Berlin", state: null, country: "DE" });
  });

  it("accepts the same state written short (NY for US-NY) and other line changes", async () => {
    const order = await newOrder({ billing: { name: "Ada", address: US_NY } });
    const body = await accepted(order.id, { billing_address: { ...US_NY, state: "NY", line1: "2 Broadway" } });
    expect(body.billing_address).toEqual({ ...US_NY, line1: "2 Broadway" });
  });

  it("ignores unknown body fields, as the anchor does, and still records the update", async () => {
    const order = await newOrder();
    const body = await accepted(order.id, { billing_name: "Kept", status: "void", net_amount: 1 });
    expect(body).toMatchObject({ billing_name: "Kept", status: "paid", net_amount: order.net_amount });
    const empty = await accepted(order.id, {});
    expect(empty.billing_name).toBe("Kept");
  });

  it("reports a country change and a state change together, writing nothing", async () => {
    const order = await newOrder({ billing: { name: "Ada", address: US_NY } });
    const response = await patch(order.id, { billing_name: "New", billing_address: { country: "CA", state: "ON", city: "Toronto" } });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      error: "RequestValidationError",
      detail: [
        {
          loc: ["body", "billing_address", "country"],
          msg: "Value error, Country cannot be changed",
          type: "value_error",
          input: "CA",
          ctx: { error: {} },
        },
        {
          loc: ["body", "billing_address", "state"],
          msg: "Value error, State cannot be changed",
          type: "value_error",
          input: "ON",
          ctx: { error: {} },
        },
      ],
    });
    const sameCountry = await patch(order.id, { billing_address: { ...US_NY, state: "US-CA" } });
    expect(sameCountry.statusCode).toBe(422);
    expect(sameCountry.json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "billing_address", "state"], msg: "Value error, State cannot be changed" }),
    ]);
    const row = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ billing_name: "Ada", billing_address: US_NY, modified_at: null });
    expect(await orderUpdatedEvents(ctx, order.id)).toEqual([]);
  });

  it("refuses with 409 once the invoice is requested or generated, writing nothing", async () => {
    for (const values of [{ invoice_requested_at: new Date() }, { invoice_path: "invoices/x.pdf" }]) {
      const order = await newOrder({ values });
      const response = await patch(order.id, { billing_name: "Too late" });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: "OrderInvoiceAlreadyRequested",
        detail: `The invoice of order ${order.id} has been generated or requested; its billing details can no longer change.`,
      });
      const row = await ctx.deps.db
        .selectFrom("orders")
        .select(["billing_name", "modified_at"])
        .where("id", "=", order.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ billing_name: "Ada Buyer", modified_at: null });
      expect(await orderUpdatedEvents(ctx, order.id)).toEqual([]);
    }
  });

  it("applies concurrent edits one after the other, one event each", async () => {
    const order = await newOrder();
    const names = Array.from({ length: 6 }, (_, i) => `Concurrent ${i}`);
    const responses = await Promise.all(names.map((name) => patch(order.id, { billing_name: name })));
    expect(responses.map((r) => r.statusCode)).toEqual(names.map(() => 200));
    const events = await orderUpdatedEvents(ctx, order.id);
    expect(events.map((e) => e.data.billing_name).sort()).toEqual(names);
    for (const event of events) expectReferenceResponse("orders:get", 200, event.data);
    const row = await ctx.deps.db.selectFrom("orders").select("billing_name").where("id", "=", order.id).executeTakeFirstOrThrow();
    expect(names).toContain(row.billing_name);
  });
});

describe("PATCH /v1/orders/{id} refusals", () => {
  let target: OrderRow;
  let foreign: OrderRow;
  let readToken: string;
  beforeAll(async () => {
    target = await newOrder({ billing: { name: "Ada", address: null } });
    const otherOrgId = (await createOrganization(ctx.deps)).id;
    foreign = await createOrder(ctx.deps, otherOrgId);
    readToken = await createOrganizationToken(ctx.deps, orgId, ["orders:read"]);
  });
  const send =
    (payload: unknown, options: { id?: () => string; token?: () => string | null } = {}) =>
    () => ({
      method: "PATCH" as const,
      url: `/v1/orders/${options.id ? options.id() : target.id}`,
      token: options.token ? options.token() : writeToken,
      payload: payload as Record<string, unknown>,
    });
  const named = { billing_name: "Changed" };

  badInputTable(
    () => ctx.request,
    [
      { name: "an overlong billing_name", request: send({ billing_name: "n".repeat(257) }), status: 422, loc: ["body", "billing_name"] },
      { name: "a numeric billing_name", request: send({ billing_name: 42 }), status: 422, loc: ["body", "billing_name"] },
      {
        name: "a billing_address that is a string",
        request: send({ billing_address: "1 Main St" }),
        status: 422,
        loc: ["body", "billing_address"],
      },
      {
        name: "a billing_address without country",
        request: send({ billing_address: { city: "Paris" } }),
        status: 422,
        loc: ["body", "billing_address", "country"],
      },
      {
        name: "an unknown country",
        request: send({ billing_address: { country: "ZZ" } }),
        status: 422,
        loc: ["body", "billing_address", "country"],
      },
      {
        name: "an overlong address line",
        request: send({ billing_address: { country: "FR", line1: "l".repeat(257) } }),
        status: 422,
        loc: ["body", "billing_address", "line1"],
      },
      {
        name: "an invalid US state",
        request: send({ billing_address: { country: "US", state: "Narnia" } }),
        status: 422,
        loc: ["body", "billing_address", "state"],
      },
      { name: "a body that is a list", request: send([named]), status: 422, loc: ["body"] },
      { name: "a non-UUID id", request: send(named, { id: () => "not-an-id" }), status: 422, loc: ["path", "id"] },
      {
        name: "an unknown id",
        request: send(named, { id: () => "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a" }),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "another organization's order", request: send(named, { id: () => foreign.id }), status: 404, error: "ResourceNotFound" },
      { name: "a token with orders:read only", request: send(named, { token: () => readToken }), status: 403, error: "insufficient_scope" },
      { name: "no token", request: send(named, { token: () => null }), status: 401, error: "Unauthorized" },
      { name: "a malformed token", request: send(named, { token: () => "polar_oat_x" }), status: 401, error: "invalid_token" },
    ],
    async () => {
      for (const order of [target, foreign]) {
        const row = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow();
        expect(row).toEqual(order);
        expect(await orderUpdatedEvents(ctx, order.id)).toEqual([]);
      }
    },
  );
});
