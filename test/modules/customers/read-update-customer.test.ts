import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let readToken: string;
let writeToken: string;
let otherOrgCustomerId: string;
let sessionsToken: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken, writeToken, sessionsToken],
  } = await openOrganizationContext(["customers:read"], ["customers:write"], ["customer_sessions:write"]));
  const other = await createOrganization(ctx.deps);
  otherOrgCustomerId = (await createCustomer(ctx.deps, other.id, { external_id: "foreign_1" })).id;
});
afterAll(() => ctx.close());

const patch = (id: string, payload: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/customers/${id}`, token, payload: payload as object });

describe("GET /v1/customers/{id} and /v1/customers/external/{external_id}", () => {
  it("answers the customer by ID and by external ID", async () => {
    const row = await createCustomer(ctx.deps, orgId, { external_id: "ext/42 é", metadata: JSON.stringify({ a: 1 }) });
    const byId = await ctx.request({ method: "GET", url: `/v1/customers/${row.id}`, token: readToken });
    expect(byId.statusCode).toBe(200);
    expectReferenceResponse("customers:get", 200, byId.json());
    expect(byId.json()).toMatchObject({
      id: row.id,
      email: row.email,
      external_id: "ext/42 é",
      metadata: { a: 1 },
      type: "individual",
      organization_id: orgId,
    });
    const byExternal = await ctx.request({
      method: "GET",
      url: `/v1/customers/external/${encodeURIComponent("ext/42 é")}`,
      token: readToken,
    });
    expect(byExternal.statusCode).toBe(200);
    expectReferenceResponse("customers:get_external", 200, byExternal.json());
    expect(byExternal.json()).toEqual(byId.json());
  });

  it("hides deleted customers", async () => {
    const row = await createCustomer(ctx.deps, orgId, { external_id: "gone", deleted_at: new Date() });
    expect((await ctx.request({ method: "GET", url: `/v1/customers/${row.id}`, token: readToken })).statusCode).toBe(404);
    expect((await ctx.request({ method: "GET", url: "/v1/customers/external/gone", token: readToken })).statusCode).toBe(404);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID id",
        request: () => ({ method: "GET", url: "/v1/customers/nope", token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an unknown id",
        request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}`, token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's customer",
        request: () => ({ method: "GET", url: `/v1/customers/${otherOrgCustomerId}`, token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "another organization's external ID",
        request: () => ({ method: "GET", url: "/v1/customers/external/foreign_1", token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "an overlong external ID",
        request: () => ({ method: "GET", url: `/v1/customers/external/${"x".repeat(300)}`, token: readToken }),
        status: 422,
        loc: ["path", "external_id"],
      },
      { name: "no token", request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}` }), status: 401, error: "Unauthorized" },
      {
        name: "a token without a customers scope",
        request: () => ({ method: "GET", url: `/v1/customers/${otherOrgCustomerId}`, token: sessionsToken }),
        status: 403,
        error: "insufficient_scope",
      },
      {
        name: "an external lookup without a customers scope",
        request: () => ({ method: "GET", url: "/v1/customers/external/foreign_1", token: sessionsToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});

describe("PATCH /v1/customers/{id}", () => {
  it("updates the given fields, leaves the others, and records customer.updated with the full customer", async () => {
    const row = await createCustomer(ctx.deps, orgId, { name: "Before", locale: "en", metadata: JSON.stringify({ keep: "no" }) });
    ctx.clock.advance(60_000);
    const response = await patch(row.id, {
      email: "after@example.com",
      name: null,
      billing_address: { country: "DE", city: "Berlin" },
      tax_id: "DE136695976",
      metadata: { tier: 2 },
      external_id: "set_later",
      type: "team",
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customers:update", 200, body);
    expect(body).toMatchObject({
      id: row.id,
      email: "after@example.com",
      email_verified: false,
      name: null,
      locale: "en",
      billing_address: { country: "DE", city: "Berlin", line1: null },
      tax_id: ["DE136695976", "eu_vat"],
      metadata: { tier: 2 },
      external_id: "set_later",
      type: "team",
      modified_at: ctx.clock.now().toISOString(),
    });
    const events = await ctx.deps.db.selectFrom("webhook_events").selectAll().where("type", "=", "customer.updated").execute();
    expect(events.map((e) => e.payload.data)).toContainEqual(body);
  });

  it("re-checks the stored tax ID when the address moves to another country", async () => {
    const row = await createCustomer(ctx.deps, orgId);
    expect((await patch(row.id, { billing_address: { country: "FR" }, tax_id: "FR61954506077" })).statusCode).toBe(200);
    const moved = await patch(row.id, { billing_address: { country: "DE" } });
    expect(moved.statusCode).toBe(422);
    expect(moved.json().detail[0]).toMatchObject({ loc: ["body", "tax_id"], msg: "Invalid tax ID.", type: "invalid" });
  });

  it("leaves a stored tax ID alone when neither it nor the address changes", async () => {
    const row = await createCustomer(ctx.deps, orgId, {
      billing_address: JSON.stringify({ country: "US", line1: null, line2: null, postal_code: null, city: null, state: null }),
      tax_id: JSON.stringify(["12-3456789", "us_ein"]),
    });
    const response = await patch(row.id, { name: "Renamed" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().tax_id).toEqual(["12-3456789", "us_ein"]);
    const cleared = await patch(row.id, { tax_id: null });
    expect(cleared.json().tax_id).toBeNull();
  });

  it("refuses to take another customer's email, and to change a set external ID", async () => {
    await createCustomer(ctx.deps, orgId, { email: "occupied@example.com" });
    const row = await createCustomer(ctx.deps, orgId, { external_id: "fixed" });
    const clash = await patch(row.id, { email: "Occupied@example.com" });
    expect(clash.statusCode).toBe(422);
    expect(clash.json().detail[0].loc).toEqual(["body", "email"]);
    const external = await patch(row.id, { external_id: "changed" });
    expect(external.statusCode).toBe(422);
    expect(external.json().detail[0]).toMatchObject({
      loc: ["body", "external_id"],
      msg: "Value error, Customer external ID cannot be updated.",
    });
    expect((await patch(row.id, { external_id: "fixed" })).statusCode).toBe(200);
  });

  it("serializes concurrent renames to one email: exactly one wins", async () => {
    const rows = await Promise.all(Array.from({ length: 6 }, () => createCustomer(ctx.deps, orgId)));
    const responses = await Promise.all(rows.map((r) => patch(r.id, { email: "wanted@example.com" })));
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.statusCode === 422)).toHaveLength(5);
  });

  describe("bad input", () => {
    let target: { id: string; email: string };
    let snapshot: unknown;
    const state = async () => ({
      customer: await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", target.id).executeTakeFirstOrThrow(),
      events: (await ctx.deps.db.selectFrom("webhook_events").select("id").execute()).length,
    });
    beforeAll(async () => {
      target = await createCustomer(ctx.deps, orgId, { type: "team", external_id: "bad_input_target" });
      snapshot = await state();
    });
    const req =
      (payload: unknown, id = () => target.id, token: () => string | null = () => writeToken) =>
      () => ({
        method: "PATCH" as const,
        url: `/v1/customers/${id()}`,
        token: token(),
        payload: payload as object,
      });

    badInputTable(
      () => ctx.request,
      [
        { name: "a null email", request: req({ email: null }), status: 422, loc: ["body", "email"] },
        { name: "an invalid email", request: req({ email: "nope" }), status: 422, loc: ["body", "email"] },
        { name: "a team downgraded to individual", request: req({ type: "individual" }), status: 422, loc: ["body", "type"] },
        { name: "a name of the wrong type", request: req({ name: 5 }), status: 422, loc: ["body", "name"] },
        { name: "an overlong locale", request: req({ locale: "x".repeat(65) }), status: 422, loc: ["body", "locale"] },
        { name: "a tax ID without address", request: req({ tax_id: "FR61954506077" }), status: 422, loc: ["body", "billing_address"] },
        { name: "an unknown id", request: req({ name: "x" }, () => UNKNOWN), status: 404, error: "ResourceNotFound" },
        {
          name: "another organization's customer",
          request: req({ name: "x" }, () => otherOrgCustomerId),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "a non-UUID id", request: req({ name: "x" }, () => "123"), status: 422, loc: ["path", "id"] },
        {
          name: "a read-only token",
          request: req(
            { name: "x" },
            () => target.id,
            () => readToken,
          ),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "no token",
          request: req(
            { name: "x" },
            () => target.id,
            () => null,
          ),
          status: 401,
          error: "Unauthorized",
        },
      ],
      async () => expect(await state()).toEqual(snapshot),
    );
  });
});

describe("first_user_event_at", () => {
  it("is the earliest user event by external id or id, before the customer existed too, on every read and write", async () => {
    const eventsToken = await createOrganizationToken(ctx.deps, orgId, ["events:write"]);
    const ingest = async (event: Record<string, unknown>) => {
      const response = await ctx.request({
        method: "POST",
        url: "/v1/events/ingest",
        token: eventsToken,
        payload: { events: [{ name: "api_call", ...event }] },
      });
      expect(response.statusCode, response.body).toBe(200);
    };
    await ingest({ external_customer_id: "early-bird", timestamp: "2026-01-02T03:04:05.123Z" });
    await ingest({ external_customer_id: "early-bird", timestamp: "2026-03-01T00:00:00.000Z" });

    const created = await ctx.request({
      method: "POST",
      url: "/v1/customers/",
      token: await createOrganizationToken(ctx.deps, orgId, ["customers:write"]),
      payload: { email: "early@example.com", external_id: "early-bird" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect(created.json().first_user_event_at).toBe("2026-01-02T03:04:05.123Z");

    // An event by id, earlier still, now counts.
    await ingest({ customer_id: id, timestamp: "2025-12-31T23:59:59.999Z" });
    const expected = "2025-12-31T23:59:59.999Z";
    const reads = [
      await ctx.request({ method: "GET", url: `/v1/customers/${id}`, token: readToken }),
      await ctx.request({ method: "GET", url: "/v1/customers/external/early-bird", token: readToken }),
      await patch(id, { name: "Early Bird" }),
    ];
    for (const response of reads) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().first_user_event_at).toBe(expected);
    }
    const listed = await ctx.request({ method: "GET", url: "/v1/customers/?query=early-bird", token: readToken });
    expect(listed.json().items).toEqual([expect.objectContaining({ id, first_user_event_at: expected })]);
  });
});
