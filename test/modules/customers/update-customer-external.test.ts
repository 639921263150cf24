import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

// PATCH /v1/customers/external/{external_id}: the update by ID's rules, without `external_id` and `type`.

let ctx: TestContext;
let orgId: string;
let readToken: string;
let writeToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken, writeToken],
  } = await openOrganizationContext(["customers:read"], ["customers:write"]));
  const other = await createOrganization(ctx.deps);
  await createCustomer(ctx.deps, other.id, { external_id: "foreign_1" });
});
afterAll(() => ctx.close());

const patch = (externalId: string, payload: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/customers/external/${encodeURIComponent(externalId)}`, token, payload: payload as object });

describe("PATCH /v1/customers/external/{external_id}", () => {
  it("updates the named customer's fields, leaves the others, and records customer.updated", async () => {
    const row = await createCustomer(ctx.deps, orgId, { external_id: "usr/1337 é", name: "Before", locale: "en", email_verified: true });
    ctx.clock.advance(60_000);
    const response = await patch("usr/1337 é", {
      email: "renamed@example.com",
      name: "After",
      billing_address: { country: "FR", city: "Paris" },
      tax_id: "FR61954506077",
      metadata: { tier: 3 },
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customers:update_external", 200, body);
    expect(body).toMatchObject({
      id: row.id,
      external_id: "usr/1337 é",
      email: "renamed@example.com",
      email_verified: false,
      name: "After",
      locale: "en",
      billing_address: { country: "FR", city: "Paris" },
      tax_id: ["FR61954506077", "eu_vat"],
      metadata: { tier: 3 },
      modified_at: ctx.clock.now().toISOString(),
    });
    const events = await ctx.deps.db.selectFrom("webhook_events").selectAll().where("type", "=", "customer.updated").execute();
    expect(events.map((e) => e.payload.data)).toContainEqual(body);
    const read = await ctx.request({ method: "GET", url: `/v1/customers/${row.id}`, token: readToken });
    expect(read.json()).toEqual(body);
  });

  it("ignores external_id and type, which this body does not carry", async () => {
    const row = await createCustomer(ctx.deps, orgId, { external_id: "fixed_ext" });
    const response = await patch("fixed_ext", { name: "Kept", external_id: "other", type: "team" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: row.id, name: "Kept", external_id: "fixed_ext", type: "individual" });
  });

  it("refuses another customer's email, as the update by ID does", async () => {
    await createCustomer(ctx.deps, orgId, { email: "taken@example.com" });
    await createCustomer(ctx.deps, orgId, { external_id: "wants_taken" });
    const response = await patch("wants_taken", { email: "Taken@example.com" });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({
      loc: ["body", "email"],
      msg: "Value error, A customer with this email address already exists.",
    });
  });

  it("does not find a deleted customer by its former external ID", async () => {
    await createCustomer(ctx.deps, orgId, { external_id: "gone_ext", deleted_at: new Date() });
    expect((await patch("gone_ext", { name: "x" })).statusCode).toBe(404);
  });

  describe("bad input", () => {
    let target: { id: string };
    let snapshot: unknown;
    const state = async () => ({
      customer: await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", target.id).executeTakeFirstOrThrow(),
      events: (await ctx.deps.db.selectFrom("webhook_events").select("id").execute()).length,
    });
    beforeAll(async () => {
      target = await createCustomer(ctx.deps, orgId, { external_id: "bad_input_target" });
      snapshot = await state();
    });
    const req =
      (payload: unknown, externalId = "bad_input_target", token: string | null = null) =>
      () => ({
        method: "PATCH" as const,
        url: `/v1/customers/external/${externalId}`,
        token: token ?? writeToken,
        payload: payload as object,
      });

    badInputTable(
      () => ctx.request,
      [
        { name: "a null email", request: req({ email: null }), status: 422, loc: ["body", "email"] },
        { name: "an invalid email", request: req({ email: "nope" }), status: 422, loc: ["body", "email"] },
        { name: "an overlong email", request: req({ email: `${"a".repeat(320)}@example.com` }), status: 422, loc: ["body", "email"] },
        { name: "a name of the wrong type", request: req({ name: 5 }), status: 422, loc: ["body", "name"] },
        { name: "an overlong name", request: req({ name: "x".repeat(257) }), status: 422, loc: ["body", "name"] },
        { name: "an overlong locale", request: req({ locale: "x".repeat(65) }), status: 422, loc: ["body", "locale"] },
        {
          name: "a metadata value too long",
          request: req({ metadata: { k: "v".repeat(501) } }),
          status: 422,
          loc: ["body", "metadata", "k"],
        },
        { name: "a tax ID without address", request: req({ tax_id: "FR61954506077" }), status: 422, loc: ["body", "billing_address"] },
        { name: "a body that is not an object", request: req([1, 2]), status: 422, loc: ["body"] },
        { name: "an unknown external ID", request: req({ name: "x" }, "nobody"), status: 404, error: "ResourceNotFound" },
        { name: "another organization's external ID", request: req({ name: "x" }, "foreign_1"), status: 404, error: "ResourceNotFound" },
        { name: "an overlong external ID", request: req({ name: "x" }, "x".repeat(300)), status: 422, loc: ["path", "external_id"] },
        {
          name: "a read-only token",
          request: () => ({ ...req({ name: "x" })(), token: readToken }),
          status: 403,
          error: "insufficient_scope",
        },
        { name: "no token", request: () => ({ ...req({ name: "x" })(), token: null }), status: 401, error: "Unauthorized" },
        { name: "a wrong token", request: req({ name: "x" }, "bad_input_target", `${writeToken}x`), status: 401, error: "invalid_token" },
      ],
      async () => expect(await state()).toEqual(snapshot),
    );
  });
});
