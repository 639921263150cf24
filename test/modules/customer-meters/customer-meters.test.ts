import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { MeterCreditPayload } from "../../../src/contracts/meter-credits.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import { TaskName } from "../../../src/jobs/task-names.ts";
import {
  createCustomer,
  createCustomerSessionToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createMember, createMemberSessionToken, enableMembers } from "../customers/member-helpers.ts";
import { aggregateMeters, ingest, runBackfills, runMeterCredits } from "../meters/meters-helpers.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending } from "../../helpers/webhooks.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

// Customer meters: credits from `meter_credit` grants (on purchase, and reset with rollover on each
// renewal), consumed units from the meter's buckets since the last reset, the balance between them.

let ctx: TestContext;
let orgId: string;
let token: string;
let readToken: string;
let checkoutToken: string;
let subscriptionsToken: string;
let foreignToken: string;
let meterId: string;

const runCredits = () => runMeterCredits(ctx);

const get = (url: string, as: string | null = readToken) => ctx.request({ method: "GET", url, token: as });
const units = (body: { consumed_units: number; credited_units: number; balance: number }) => [
  body.consumed_units,
  body.credited_units,
  body.balance,
];

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, readToken, checkoutToken, subscriptionsToken],
  } = await openOrganizationContext(
    ["meters:write", "events:write", "benefits:write"],
    ["customer_meters:read", "customers:read"],
    ["checkouts:write"],
    ["subscriptions:write"],
  ));
  foreignToken = await createOrganizationToken(ctx.deps, (await createOrganization(ctx.deps)).id, [
    "customer_meters:read",
    "benefits:write",
  ]);
  const meter = await ctx.request({
    method: "POST",
    url: "/v1/meters/",
    token,
    payload: {
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
      aggregation: { func: "count" },
    },
  });
  expect(meter.statusCode, meter.body).toBe(201);
  meterId = meter.json<{ id: string }>().id;
});
afterAll(() => ctx.close());
const { engine, receiver, closeReceivers } = deliveryHarness(() => ctx);
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});

describe("the meter_credit benefit", () => {
  it("is created with its units, rollover and meter, in the reference's shape", async () => {
    const response = await ctx.request({
      method: "POST",
      url: "/v1/benefits/",
      token,
      payload: { type: "meter_credit", description: "100 API calls", properties: { units: 100, rollover: true, meter_id: meterId } },
    });
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("benefits:create", 201, response.json());
    expect(response.json()).toMatchObject({ type: "meter_credit", properties: { units: 100, rollover: true, meter_id: meterId } });
  });
});

describe("the meter_credit benefit's bad input", () => {
  const benefitCount = async () =>
    Number(
      (
        await ctx.deps.db
          .selectFrom("benefits")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  let before = 0;
  beforeAll(async () => {
    before = await benefitCount();
  });
  const body = (properties: Record<string, unknown>) => ({ type: "meter_credit", description: "Credits", properties });
  const post =
    (payload: () => object, as: () => string | null = () => token) =>
    () => ({ method: "POST" as const, url: "/v1/benefits/", token: as(), payload: payload() });
  badInputTable(
    () => ctx.request,
    [
      {
        name: "an unknown meter",
        request: post(() => body({ units: 1, rollover: false, meter_id: "00000000-0000-4000-8000-000000000000" })),
        status: 422,
        loc: ["body", "properties", "meter_id"],
      },
      {
        name: "another organization's meter",
        request: post(
          () => body({ units: 1, rollover: false, meter_id: meterId }),
          () => foreignToken,
        ),
        status: 422,
        loc: ["body", "properties", "meter_id"],
      },
      {
        name: "zero units",
        request: post(() => body({ units: 0, rollover: false, meter_id: "00000000-0000-4000-8000-000000000000" })),
        status: 422,
      },
      {
        name: "units as text",
        request: post(() => body({ units: "5", rollover: false, meter_id: "00000000-0000-4000-8000-000000000000" })),
        status: 422,
      },
      {
        name: "units beyond Int32",
        request: post(() => body({ units: 2 ** 31, rollover: false, meter_id: "00000000-0000-4000-8000-000000000000" })),
        status: 422,
      },
      {
        name: "a missing rollover",
        request: post(() => body({ units: 1, meter_id: "00000000-0000-4000-8000-000000000000" })),
        status: 422,
      },
      { name: "a meter id that is no UUID", request: post(() => body({ units: 1, rollover: true, meter_id: "nope" })), status: 422 },
      {
        name: "an overlong description",
        request: post(() => ({ ...body({ units: 1, rollover: true, meter_id: meterId }), description: "x".repeat(43) })),
        status: 422,
      },
      {
        name: "no token",
        request: post(
          () => body({ units: 1, rollover: true, meter_id: meterId }),
          () => null,
        ),
        status: 401,
      },
      {
        name: "a token without benefits:write",
        request: post(
          () => body({ units: 1, rollover: true, meter_id: meterId }),
          () => readToken,
        ),
        status: 403,
      },
    ],
    async () => expect(await benefitCount()).toBe(before),
  );
});

describe("credits, consumption and balances", () => {
  let customerId: string;
  let customerMeterId: string;

  it("credits the units on purchase and counts the customer's events against them", async () => {
    ctx.clock.set(new Date("2027-04-01T10:20:00.000Z"));
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: "Metered plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
      benefits: [{ type: "meter_credit", description: "API credits", properties: { units: 100, rollover: true, meter_id: meterId } }],
    });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, {
      buyer: { customer_email: "metered@example.com" },
    });
    customerId = checkout.customer_id;
    expect((await runCredits()).map((p) => p.kind)).toEqual(["grant"]);
    // A replayed job applies nothing twice.
    const [grant] = await ctx.deps.db.selectFrom("benefit_grants").select("id").where("customer_id", "=", customerId).execute();
    await ctx.services.customerMeters.applyCredit({ grant_id: grant!.id, kind: "grant", at: "2027-04-01T10:20:00.000Z" });

    ctx.clock.set(new Date("2027-05-01T10:20:00.000Z"));
    await ingest(ctx, token, [
      ...Array.from({ length: 30 }, (_, i) => ({
        name: "api_call",
        customer_id: customerId,
        timestamp: `2027-04-10T12:${String(i).padStart(2, "0")}:00Z`,
      })),
      { name: "other", customer_id: customerId, timestamp: "2027-04-10T12:00:00Z" },
      { name: "api_call", customer_id: customerId, timestamp: "2027-05-01T10:05:00Z" },
    ]);

    const list = await get(`/v1/customer-meters/?customer_id=${customerId}`);
    expect(list.statusCode, list.body).toBe(200);
    expectReferenceResponse("customer_meters:list", 200, list.json());
    const [item] = list.json<{
      items: { id: string; customer_id: string; meter_id: string; consumed_units: number; credited_units: number; balance: number }[];
    }>().items;
    expect(item).toMatchObject({ customer_id: customerId, meter_id: meterId, customer: { id: customerId }, meter: { id: meterId } });
    expect(units(item!)).toEqual([31, 100, 69]);
    customerMeterId = item!.id;

    // The grant tells its last credit, in the reference's shape.
    const grants = await get(`/v1/benefit-grants/?customer_id=${customerId}`, token);
    expect(grants.statusCode, grants.body).toBe(200);
    expectReferenceResponse("benefit-grants:list", 200, grants.json());
    expect(grants.json<{ items: { properties: unknown }[] }>().items.map((g) => g.properties)).toEqual([
      { last_credited_meter_id: meterId, last_credited_units: 100, last_credited_at: "2027-04-01T10:20:00.000Z" },
    ]);

    const one = await get(`/v1/customer-meters/${customerMeterId}`);
    expect(one.statusCode, one.body).toBe(200);
    expectReferenceResponse("customer_meters:get", 200, one.json());
    expect(units(one.json())).toEqual([31, 100, 69]);

    const state = await get(`/v1/customers/${customerId}/state`);
    expect(state.statusCode, state.body).toBe(200);
    expectReferenceResponse("customers:get_state", 200, state.json());
    expect(state.json<{ active_meters: unknown[] }>().active_meters).toEqual([
      expect.objectContaining({ id: customerMeterId, meter_id: meterId, consumed_units: 31, credited_units: 100, balance: 69 }),
    ]);
  });

  it("resets on renewal, carrying the unused rollover units over, and counts only the events after the reset", async () => {
    await ctx.services.subscriptionRenewals.sweep({ organizationId: orgId });
    expect((await runCredits()).map((p) => [p.kind, p.at])).toEqual([["cycle", "2027-05-01T10:20:00.000Z"]]);
    // 69 unused (all of them rollover-flagged) carried over, then the new 100; the 10:05 event is before the reset.
    expect(units((await get(`/v1/customer-meters/${customerMeterId}`)).json())).toEqual([0, 169, 169]);

    ctx.clock.set(new Date("2027-05-02T00:00:00.000Z"));
    await ingest(ctx, token, [
      { name: "api_call", customer_id: customerId, timestamp: "2027-05-01T10:40:00Z" },
      ...Array.from({ length: 4 }, (_, i) => ({ name: "api_call", customer_id: customerId, timestamp: `2027-05-01T15:0${i}:00Z` })),
    ]);
    expect(units((await get(`/v1/customer-meters/${customerMeterId}`)).json())).toEqual([5, 169, 164]);
  });

  it("sends the meters in customer.state_changed, parsed by the SDK", async () => {
    const hook = await receiver();
    const endpoint = await createWebhookEndpoint(ctx.deps, orgId, { url: hook.url, events: ["customer.state_changed"] });
    await ctx.services.customerStates.publishStateChanged(customerId);
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(1);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ctx.clock.now());
    const parsed = await webhooks.validateEvent(hook.received[0]!.body, hook.received[0]!.headers, endpoint.secret);
    expect(parsed.type).toBe("customer.state_changed");
    expect(parsed.data).toMatchObject({
      id: customerId,
      active_meters: [{ id: customerMeterId, meter_id: meterId, consumed_units: 5, credited_units: 169, balance: 164 }],
    });
  });

  it("shows the session's customer its meters in the portal, and no other customer's", async () => {
    const session = await createCustomerSessionToken(ctx.deps, customerId);
    const list = await get("/v1/customer-portal/meters/", session);
    expect(list.statusCode, list.body).toBe(200);
    expectReferenceResponse("customer_portal:customer_meters:list", 200, list.json());
    expect(list.json<{ items: { id: string }[] }>().items.map((i) => i.id)).toEqual([customerMeterId]);
    const one = await get(`/v1/customer-portal/meters/${customerMeterId}`, session);
    expect(one.statusCode, one.body).toBe(200);
    expectReferenceResponse("customer_portal:customer_meters:get", 200, one.json());
    expect(one.json()).toMatchObject({ meter: { id: meterId, name: "API calls" }, consumed_units: 5, credited_units: 169, balance: 164 });

    const stranger = await createCustomerSessionToken(ctx.deps, (await createCustomer(ctx.deps, orgId)).id);
    expect((await get(`/v1/customer-portal/meters/${customerMeterId}`, stranger)).statusCode).toBe(404);
    expect((await get("/v1/customer-portal/meters/", stranger)).json<{ items: unknown[] }>().items).toEqual([]);
    expect((await get(`/v1/customer-meters/${customerMeterId}`, foreignToken)).statusCode).toBe(404);
  });

  it("sorts by the computed balance and hides archived meters unless named", async () => {
    const other = await createProduct(ctx.deps, orgId, {
      product: { name: "Small plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 500 }],
      benefits: [{ type: "meter_credit", description: "Few credits", properties: { units: 10, rollover: false, meter_id: meterId } }],
    });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, other.product.id, { buyer: { customer_email: "small@example.com" } });
    await runCredits();
    const byBalance = await get("/v1/customer-meters/?sorting=balance");
    expect(byBalance.json<{ items: { customer_id: string; balance: number }[] }>().items.map((i) => [i.customer_id, i.balance])).toEqual([
      [checkout.customer_id, 10],
      [customerId, 164],
    ]);
    const paged = await get("/v1/customer-meters/?sorting=-balance&limit=1&page=2");
    expect(paged.json()).toMatchObject({ items: [{ customer_id: checkout.customer_id }], pagination: { total_count: 2, max_page: 2 } });

    await ctx.request({ method: "PATCH", url: `/v1/meters/${meterId}`, token, payload: { is_archived: true } });
    expect((await get("/v1/customer-meters/")).json<{ items: unknown[] }>().items).toEqual([]);
    expect((await get(`/v1/customer-meters/?meter_id=${meterId}`)).json<{ items: unknown[] }>().items).toHaveLength(2);
    await ctx.request({ method: "PATCH", url: `/v1/meters/${meterId}`, token, payload: { is_archived: false } });
  });
});

describe("grants that race, end, or are read by a member", () => {
  it("applies one credit however many copies of its job run at once, and takes it back when the grant is revoked", async () => {
    ctx.clock.set(new Date("2027-06-01T08:00:00.000Z"));
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: "Racing plan", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "fixed", price_amount: 700 }],
      benefits: [{ type: "meter_credit", description: "Race credits", properties: { units: 40, rollover: false, meter_id: meterId } }],
    });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "race@example.com" } });
    const [job] = await queuedJobs<MeterCreditPayload>(ctx.deps.db, { task: TaskName.meterCredit });
    await Promise.all(Array.from({ length: 6 }, () => ctx.services.customerMeters.applyCredit(job!.payload)));
    await runCredits();
    const row = () =>
      get(`/v1/customer-meters/?customer_id=${checkout.customer_id}`).then(
        (r) => r.json<{ items: { consumed_units: number; credited_units: number; balance: number }[] }>().items,
      );
    expect((await row()).map(units)).toEqual([[0, 40, 40]]);

    const member = await (async () => {
      await enableMembers(ctx.deps, orgId);
      const created = await createMember(ctx.deps, { id: checkout.customer_id, organization_id: orgId }, "member");
      return createMemberSessionToken(ctx.deps, checkout.customer_id, created.id);
    })();
    const portal = await get("/v1/customer-portal/meters/", member);
    expect(portal.statusCode, portal.body).toBe(200);
    expect(portal.json<{ items: { credited_units: number }[] }>().items.map((i) => i.credited_units)).toEqual([40]);

    const revoked = await ctx.request({
      method: "PATCH",
      url: `/v1/subscriptions/${checkout.subscription_id}`,
      token: subscriptionsToken,
      payload: { revoke: true },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect((await runCredits()).map((p) => p.kind)).toEqual(["revoke"]);
    expect((await row()).map(units)).toEqual([[0, 0, 0]]);
    // The portal lists only meters the customer still holds.
    expect((await get("/v1/customer-portal/meters/", member)).json<{ items: unknown[] }>().items).toEqual([]);
  });
});

describe("bad input", () => {
  badInputTable(
    () => ctx.request,
    [
      {
        name: "an unknown sorting key",
        request: () => ({ method: "GET", url: "/v1/customer-meters/?sorting=name", token: readToken }),
        status: 422,
        loc: ["query", "sorting", 0],
      },
      {
        name: "a customer id that is no UUID",
        request: () => ({ method: "GET", url: "/v1/customer-meters/?customer_id=x", token: readToken }),
        status: 422,
      },
      {
        name: "page 0",
        request: () => ({ method: "GET", url: "/v1/customer-meters/?page=0", token: readToken }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "a limit as text",
        request: () => ({ method: "GET", url: "/v1/customer-meters/?limit=ten", token: readToken }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "an overlong external id",
        request: () => ({ method: "GET", url: `/v1/customer-meters/?external_customer_id=${"x".repeat(257)}`, token: readToken }),
        status: 422,
      },
      {
        name: "an id that is no UUID",
        request: () => ({ method: "GET", url: "/v1/customer-meters/nope", token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an unknown id",
        request: () => ({ method: "GET", url: "/v1/customer-meters/00000000-0000-4000-8000-000000000000", token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/customer-meters/", token: null }), status: 401 },
      { name: "a token without customer_meters:read", request: () => ({ method: "GET", url: "/v1/customer-meters/", token }), status: 403 },
      {
        name: "the portal without a session",
        request: () => ({ method: "GET", url: "/v1/customer-portal/meters/", token: null }),
        status: 401,
      },
      {
        name: "the portal with an organization token",
        request: () => ({ method: "GET", url: "/v1/customer-portal/meters/", token: readToken }),
        status: 401,
      },
    ],
  );

  it("answers 422 for the portal's bad ids, sorting and overlong query", async () => {
    const session = await createCustomerSessionToken(ctx.deps, (await createCustomer(ctx.deps, orgId)).id);
    for (const url of [
      "/v1/customer-portal/meters/nope",
      "/v1/customer-portal/meters/?sorting=customer_name",
      `/v1/customer-portal/meters/?query=${"x".repeat(257)}`,
    ]) {
      const response = await get(url, session);
      expect(response.statusCode, url).toBe(422);
      expect(response.json<{ error: string }>().error).toBe("RequestValidationError");
    }
  });
});

describe("a customer meter activated by the customer's first matching event", () => {
  let activationMeterId: string;
  const rowsOf = async (customerId: string) =>
    (await get(`/v1/customer-meters/?customer_id=${customerId}&meter_id=${activationMeterId}`)).json<{
      items: { id: string; consumed_units: number; credited_units: number; balance: number }[];
    }>().items;

  beforeAll(async () => {
    const meter = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token,
      payload: {
        name: "Activations",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "activation" }] },
        aggregation: { func: "count" },
      },
    });
    expect(meter.statusCode, meter.body).toBe(201);
    activationMeterId = meter.json<{ id: string }>().id;
  });

  it("exists once the customer's first matching event is aggregated, by id or external id, never twice; an unknown external id creates none", async () => {
    ctx.clock.set(new Date("2027-08-01T12:00:00.000Z"));
    const byId = await createCustomer(ctx.deps, orgId);
    const byExternal = await createCustomer(ctx.deps, orgId, { external_id: "activation-ext" });
    // Not matching the meter: no row.
    await ingest(ctx, token, [{ name: "other", customer_id: byId.id, timestamp: "2027-08-01T10:00:00Z" }]);
    await aggregateMeters(ctx);
    expect(await rowsOf(byId.id)).toEqual([]);

    await ingest(ctx, token, [
      { name: "activation", customer_id: byId.id, timestamp: "2027-08-01T10:00:00Z" },
      { name: "activation", external_customer_id: "activation-ext", timestamp: "2027-08-01T10:00:00Z" },
      { name: "activation", external_customer_id: "nobody-yet", timestamp: "2027-08-01T10:00:00Z" },
    ]);
    // Not before the meters:aggregate job has seen the event (seconds later, as the anchor's).
    expect(await rowsOf(byId.id)).toEqual([]);
    await aggregateMeters(ctx);
    expect((await rowsOf(byId.id)).map(units)).toEqual([[1, 0, -1]]);
    // Same hour, then new hours: still one row each, counting every event; usage without credit is a negative balance.
    await ingest(ctx, token, [
      { name: "activation", customer_id: byId.id, timestamp: "2027-08-01T10:30:00Z" },
      { name: "activation", customer_id: byId.id, timestamp: "2027-08-01T11:30:00Z" },
      { name: "activation", external_customer_id: "activation-ext", timestamp: "2027-08-01T11:00:00Z" },
    ]);
    await aggregateMeters(ctx);
    expect((await rowsOf(byId.id)).map(units)).toEqual([[3, 0, -3]]);
    expect((await rowsOf(byExternal.id)).map(units)).toEqual([[2, 0, -2]]);
    const one = await get(`/v1/customer-meters/?meter_id=${activationMeterId}`);
    expectReferenceResponse("customer_meters:list", 200, one.json());
    expect(
      one
        .json<{ items: { customer_id: string }[] }>()
        .items.map((i) => i.customer_id)
        .sort(),
    ).toEqual([byId.id, byExternal.id].sort());
    // The customer's state lists it.
    const state = await get(`/v1/customers/${byId.id}/state`);
    expect(state.json<{ active_meters: { meter_id: string }[] }>().active_meters.map((m) => m.meter_id)).toEqual([activationMeterId]);
  });

  it("is created once however many first batches and aggregations race, and by a meter's back-fill for events that came before it", async () => {
    ctx.clock.set(new Date("2027-08-02T12:00:00.000Z"));
    const racer = await createCustomer(ctx.deps, orgId);
    // Batches and two workers' aggregation runs at once, then a last run for what they missed.
    let ingesting = true;
    const working = async () => {
      while (ingesting) await aggregateMeters(ctx);
    };
    const workers = [working(), working()];
    await Promise.all(
      Array.from({ length: 6 }, (_, batch) =>
        ingest(ctx, token, [{ name: "activation", customer_id: racer.id, timestamp: `2027-08-02T0${batch}:00:00Z` }]),
      ),
    );
    ingesting = false;
    await Promise.all(workers);
    await aggregateMeters(ctx);
    expect((await rowsOf(racer.id)).map(units)).toEqual([[6, 0, -6]]);

    // Events before their meter exists: the back-fill activates the row.
    const early = await createCustomer(ctx.deps, orgId);
    await ingest(ctx, token, [{ name: "backfilled", customer_id: early.id, timestamp: "2027-08-02T09:00:00Z" }]);
    const meter = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token,
      payload: {
        name: "Back-filled",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "backfilled" }] },
        aggregation: { func: "count" },
      },
    });
    const backfilledMeterId = meter.json<{ id: string }>().id;
    const listed = () =>
      get(`/v1/customer-meters/?customer_id=${early.id}&meter_id=${backfilledMeterId}`).then((r) => r.json<{ items: unknown[] }>().items);
    expect(await listed()).toEqual([]);
    await runBackfills(ctx);
    expect(await listed()).toHaveLength(1);
  });

  it("shows a subscribed meter without credits in the portal once the customer uses it", async () => {
    ctx.clock.set(new Date("2027-08-03T12:00:00.000Z"));
    const plan = await createProduct(ctx.deps, orgId, {
      product: { name: "Pay as you go", recurring_interval: "month", recurring_interval_count: 1 },
      prices: [{ amount_type: "metered_unit", unit_amount: "1", cap_amount: null, meter_id: activationMeterId, meter_name: "Activations" }],
    });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, plan.product.id, { buyer: { customer_email: "payg@example.com" } });
    const session = await createCustomerSessionToken(ctx.deps, checkout.customer_id);
    expect((await get("/v1/customer-portal/meters/", session)).json<{ items: unknown[] }>().items).toEqual([]);
    await ingest(ctx, token, [{ name: "activation", customer_id: checkout.customer_id, timestamp: "2027-08-03T11:00:00Z" }]);
    await aggregateMeters(ctx);
    const portal = await get("/v1/customer-portal/meters/", session);
    expectReferenceResponse("customer_portal:customer_meters:list", 200, portal.json());
    expect(portal.json<{ items: { meter_id: string; consumed_units: number; credited_units: number }[] }>().items).toEqual([
      expect.objectContaining({ meter_id: activationMeterId, consumed_units: 1, credited_units: 0 }),
    ]);
  });
});
