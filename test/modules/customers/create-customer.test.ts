import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [writeToken],
  } = await openOrganizationContext(["customers:write"]));
});
afterAll(() => ctx.close());

const create = (payload: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "POST", url: "/v1/customers/", token, payload: payload as object });
const countRows = async (table: "customers" | "webhook_events") =>
  Number(
    (
      await ctx.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("POST /v1/customers/", () => {
  it("creates an individual customer with every field and records customer.created", async () => {
    const response = await create({
      email: "Ada.Lovelace@Example.com",
      name: "Ada Lovelace",
      external_id: "user_42",
      billing_address: { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" },
      tax_id: "FR 619 545 060 77",
      locale: "fr",
      metadata: { plan: "pro", seats: 3, vip: true },
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("customers:create", 201, body);
    expect(body).toEqual({
      id: expect.any(String),
      created_at: ctx.clock.now().toISOString(),
      modified_at: null,
      metadata: { plan: "pro", seats: 3, vip: true },
      external_id: "user_42",
      email: "Ada.Lovelace@Example.com",
      email_verified: false,
      type: "individual",
      name: "Ada Lovelace",
      // No billing name was given: the name stands in, as the anchor does.
      billing_name: "Ada Lovelace",
      billing_address: { line1: "1 rue de Rivoli", line2: null, postal_code: "75001", city: "Paris", state: null, country: "FR" },
      tax_id: ["FR61954506077", "eu_vat"],
      locale: "fr",
      organization_id: orgId,
      default_payment_method_id: null,
      deleted_at: null,
      first_user_event_at: null,
      // SHA-256 of "ada.lovelace@example.com": the email lowercased, as the anchor hashes it.
      avatar_url: "https://www.gravatar.com/avatar/e814ff3dc480a94c7ce9334062ec4733c75a002f4bcec0197f62ffea64059e2f?d=404",
    });
    const event = await ctx.deps.db
      .selectFrom("webhook_events")
      .selectAll()
      .where("type", "=", "customer.created")
      .executeTakeFirstOrThrow();
    expect(event.organization_id).toBe(orgId);
    expect(event.payload.data).toEqual(body);
  });

  it("keeps tax IDs only under the reference's formats: a Serbian PIB as rs_pib, a US number refused", async () => {
    const serbian = await create({ email: "rs@example.com", billing_address: { country: "RS" }, tax_id: "RS 101134702" });
    expect(serbian.statusCode, serbian.body).toBe(201);
    expect(serbian.json().tax_id).toEqual(["101134702", "rs_pib"]);
    const american = await create({ email: "us@example.com", billing_address: { country: "US", state: "US-NY" }, tax_id: "12-3456789" });
    expect(american.statusCode).toBe(422);
    expect(american.json().detail).toEqual([{ loc: ["body", "tax_id"], msg: "Invalid tax ID.", type: "invalid", input: "12-3456789" }]);
  });

  it("creates a team customer", async () => {
    const response = await create({ type: "team", email: "billing@team.example", name: "Team" });
    expect(response.statusCode).toBe(201);
    expectReferenceResponse("customers:create", 201, response.json());
    expect(response.json()).toMatchObject({ type: "team", email: "billing@team.example", name: "Team", external_id: null, tax_id: null });
  });

  it("lets the owner create in a named organization", async () => {
    const response = await create({ email: "owner-made@example.com", organization_id: orgId }, ctx.ownerToken);
    expect(response.statusCode).toBe(201);
    expect(response.json().organization_id).toBe(orgId);
  });

  it("refuses an email already used in the organization, whatever its case (422)", async () => {
    await createCustomer(ctx.deps, orgId, { email: "taken@example.com" });
    const response = await create({ email: "TAKEN@example.com" });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("customers:create", 422, response.json());
    expect(response.json().detail).toEqual([
      {
        loc: ["body", "email"],
        msg: "Value error, A customer with this email address already exists.",
        type: "value_error",
        input: "TAKEN@example.com",
        ctx: { error: {} },
      },
    ]);
  });

  it("allows the same email and external ID in another organization", async () => {
    await createCustomer(ctx.deps, orgId, { email: "shared@example.com", external_id: "shared_1" });
    const other = await createOrganization(ctx.deps);
    const otherToken = await createOrganizationToken(ctx.deps, other.id, ["customers:write"]);
    const response = await create({ email: "shared@example.com", external_id: "shared_1" }, otherToken);
    expect(response.statusCode).toBe(201);
  });

  it("lets the unique index decide a race: one of ten concurrent creations wins, the rest get 422", async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ email: `racer-${i}@example.com`, external_id: "racing_external" })),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(422)]);
    for (const response of responses.filter((r) => r.statusCode === 422)) {
      expect(response.json().detail[0]).toMatchObject({
        loc: ["body", "external_id"],
        msg: "Value error, A customer with this external ID already exists.",
      });
    }
    const rows = await ctx.deps.db.selectFrom("customers").select("id").where("external_id", "=", "racing_external").execute();
    expect(rows).toHaveLength(1);
  });

  it("refuses concurrent creations of one email (different case) with exactly one success", async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create({ email: i % 2 ? "Same@Race.example" : "same@race.example" })),
    );
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.statusCode === 422)).toHaveLength(7);
  });

  describe("bad input", () => {
    let readToken: string;
    let before: { customers: number; events: number };
    const snapshot = async () => ({ customers: await countRows("customers"), events: await countRows("webhook_events") });
    beforeAll(async () => {
      readToken = await createOrganizationToken(ctx.deps, orgId, ["customers:read"]);
      // A customer and its event, so that a count the refusals wrongly changed cannot hide at zero.
      expect((await create({ email: "before-refusals@example.com" })).statusCode).toBe(201);
      before = await snapshot();
    });

    const post =
      (payload: unknown, token: () => string | null = () => writeToken) =>
      () => ({ method: "POST" as const, url: "/v1/customers/", token: token(), payload: payload as object });
    badInputTable(
      () => ctx.request,
      [
        { name: "a missing email", request: post({ name: "No Email" }), status: 422, loc: ["body", "email"] },
        { name: "an invalid email", request: post({ email: "not-an-email" }), status: 422, loc: ["body", "email"] },
        { name: "an email of the wrong type", request: post({ email: 42 }), status: 422, loc: ["body", "email"] },
        { name: "an overlong email", request: post({ email: `${"a".repeat(320)}@example.com` }), status: 422, loc: ["body", "email"] },
        { name: "an overlong name", request: post({ email: "n@example.com", name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        {
          name: "an overlong external_id",
          request: post({ email: "x@example.com", external_id: "x".repeat(257) }),
          status: 422,
          loc: ["body", "external_id"],
        },
        { name: "an unknown type", request: post({ email: "t@example.com", type: "company" }), status: 422, loc: ["body", "type"] },
        { name: "a team without an email or an owner email", request: post({ type: "team", name: "T" }), status: 422, loc: ["body"] },
        {
          name: "a billing address without country",
          request: post({ email: "a@example.com", billing_address: { line1: "x" } }),
          status: 422,
          loc: ["body", "billing_address", "country"],
        },
        {
          name: "a sanctioned country",
          request: post({ email: "a@example.com", billing_address: { country: "RU" } }),
          status: 422,
          loc: ["body", "billing_address", "country"],
        },
        {
          name: "a tax ID without an address",
          request: post({ email: "a@example.com", tax_id: "FR61954506077" }),
          status: 422,
          loc: ["body", "billing_address"],
        },
        {
          name: "an invalid tax ID",
          request: post({ email: "a@example.com", tax_id: "FR00000000000", billing_address: { country: "FR" } }),
          status: 422,
          loc: ["body", "tax_id"],
        },
        {
          name: "too many metadata keys",
          request: post({ email: "a@example.com", metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }),
          status: 422,
          loc: ["body", "metadata"],
        },
        {
          name: "an overlong metadata value",
          request: post({ email: "a@example.com", metadata: { k: "v".repeat(501) } }),
          status: 422,
          loc: ["body", "metadata", "k"],
        },
        {
          name: "an organization_id with an organization token",
          request: post({ email: "a@example.com", organization_id: "3f2b1c4d-1111-4222-8333-123456789abc" }),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "the owner without organization_id",
          request: post({ email: "a@example.com" }, () => ctx.ownerToken),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "the owner naming an unknown organization",
          request: post({ email: "a@example.com", organization_id: "3f2b1c4d-1111-4222-8333-123456789abc" }, () => ctx.ownerToken),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "an external_id with a NUL character",
          request: post({ email: "nul@example.com", external_id: "a\u0000b" }),
          status: 422,
          loc: ["body"],
        },
        { name: "a body that is not an object", request: post([1, 2]), status: 422 },
        { name: "no token", request: post({ email: "a@example.com" }, () => null), status: 401, error: "Unauthorized" },
        {
          name: "an unknown token",
          request: post({ email: "a@example.com" }, () => "polar_oat_unknown"),
          status: 401,
          error: "invalid_token",
        },
        {
          name: "a read-only token",
          request: () => ({ method: "POST", url: "/v1/customers/", token: readToken, payload: { email: "a@example.com" } }),
          status: 403,
          error: "insufficient_scope",
        },
      ],
      async () => expect(await snapshot()).toEqual(before),
    );
  });
});
