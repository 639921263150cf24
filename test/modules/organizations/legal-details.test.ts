import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;
let readToken: string;
beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["organizations:write"]);
  readToken = await createOrganizationToken(ctx.deps, orgId, ["organizations:read"]);
});
afterAll(() => ctx.close());

const url = (id: string) => `/v1/organizations/${id}/legal-details`;

describe("organization legal details (an extension)", () => {
  it("starts from the registered name given at creation, then writes only the fields sent", async () => {
    const created = await ctx.request({
      method: "POST",
      url: "/v1/organizations/",
      token: ctx.ownerToken,
      payload: { name: "Acme", slug: "acme-legal", legal_entity: { type: "company", registered_name: "Acme Tools SAS" } },
    });
    const id = created.json().id;
    const first = await ctx.request({ method: "GET", url: url(id), token: ctx.ownerToken });
    expect(first.json()).toEqual({ registered_name: "Acme Tools SAS", address: null, tax_registrations: [] });

    const address = { line1: "1 rue de la Paix", line2: null, postal_code: "75002", city: "Paris", state: null, country: "FR" };
    const patched = await ctx.request({
      method: "PATCH",
      url: url(orgId),
      token: writeToken,
      payload: {
        address,
        tax_registrations: [
          { country: "FR", number: " FR40303265045 " },
          { country: "CA", state: "CA-QC", number: "1234567890TQ0001" },
        ],
      },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const expected = {
      registered_name: null,
      address,
      tax_registrations: [
        { country: "FR", state: null, scheme: "standard", number: "FR40303265045" },
        { country: "CA", state: "CA-QC", scheme: "standard", number: "1234567890TQ0001" },
      ],
    };
    expect(patched.json()).toEqual(expected);
    const renamed = await ctx.request({ method: "PATCH", url: url(orgId), token: writeToken, payload: { registered_name: "Acme SAS" } });
    expect(renamed.json()).toEqual({ ...expected, registered_name: "Acme SAS" });
    expect((await ctx.request({ method: "GET", url: url(orgId), token: readToken })).json()).toEqual({
      ...expected,
      registered_name: "Acme SAS",
    });
  });

  it("records where the organization collects tax: a One-Stop Shop entry, a province's own registration, states in ISO form", async () => {
    const id = (await createOrganization(ctx.deps)).id;
    const token = await createOrganizationToken(ctx.deps, id, ["organizations:write"]);
    const response = await ctx.request({
      method: "PATCH",
      url: url(id),
      token,
      payload: {
        tax_registrations: [
          { country: "FR", scheme: "eu_oss", number: "FR40303265045" },
          { country: "CA", number: "123456789RT0001" },
          { country: "CA", state: "qc", number: "1234567890TQ0001" },
          { country: "JP", number: null },
        ],
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().tax_registrations).toEqual([
      { country: "FR", state: null, scheme: "eu_oss", number: "FR40303265045" },
      { country: "CA", state: null, scheme: "standard", number: "123456789RT0001" },
      { country: "CA", state: "CA-QC", scheme: "standard", number: "1234567890TQ0001" },
      { country: "JP", state: null, scheme: "standard", number: null },
    ]);
    // A new organization is registered nowhere; an empty list registers it nowhere again.
    const cleared = await ctx.request({ method: "PATCH", url: url(id), token, payload: { tax_registrations: [] } });
    expect(cleared.json().tax_registrations).toEqual([]);
  });

  it("is listed in the OpenAPI document", async () => {
    const document = (await ctx.request({ method: "GET", url: "/openapi.json" })).json();
    expect(document.paths["/v1/organizations/{id}/legal-details"].patch.operationId).toBe("organizations:update_legal_details");
    expect(document.paths["/v1/organizations/{id}/legal-details"].get.operationId).toBe("organizations:get_legal_details");
    const answered = document.paths["/v1/organizations/{id}/legal-details"].get.responses["200"].content["application/json"].schema;
    expect(answered.properties.tax_registrations.items.properties.scheme.enum).toEqual(["standard", "eu_oss"]);
  });

  describe("bad input", () => {
    let otherOrg: string;
    beforeAll(async () => {
      otherOrg = (await createOrganization(ctx.deps)).id;
    });
    const patch =
      (payload: unknown, options: { token?: string | null; id?: string } = {}) =>
      () => ({
        method: "PATCH" as const,
        url: url(options.id ?? orgId),
        token: options.token === undefined ? writeToken : options.token,
        payload: payload as object,
      });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "a registered name of the wrong type",
          request: patch({ registered_name: 42 }),
          status: 422,
          loc: ["body", "registered_name"],
        },
        { name: "an empty registered name", request: patch({ registered_name: "" }), status: 422, loc: ["body", "registered_name"] },
        { name: "an unknown country", request: patch({ address: { country: "XX" } }), status: 422, loc: ["body", "address", "country"] },
        {
          name: "a US address without its state",
          request: patch({ address: { country: "US" } }),
          status: 422,
          loc: ["body", "address", "state"],
        },
        {
          name: "a registration without a number",
          request: patch({ tax_registrations: [{ country: "FR" }] }),
          status: 422,
          loc: ["body", "tax_registrations", 0, "number"],
        },
        {
          name: "a registration where the rate table collects nothing (US sales tax)",
          request: patch({
            tax_registrations: [
              { country: "FR", number: "FR40303265045" },
              { country: "US", number: "123" },
            ],
          }),
          status: 422,
          loc: ["body", "tax_registrations", 1, "country"],
        },
        {
          name: "a province whose tax is collected under the country's registration (Ontario's HST)",
          request: patch({ tax_registrations: [{ country: "CA", state: "ON", number: "1" }] }),
          status: 422,
          loc: ["body", "tax_registrations", 0, "state"],
        },
        {
          name: "a One-Stop Shop outside the EU",
          request: patch({ tax_registrations: [{ country: "GB", scheme: "eu_oss", number: "1" }] }),
          status: 422,
          loc: ["body", "tax_registrations", 0, "country"],
        },
        {
          name: "an unknown scheme",
          request: patch({ tax_registrations: [{ country: "FR", scheme: "moss", number: "1" }] }),
          status: 422,
          loc: ["body", "tax_registrations", 0, "scheme"],
        },
        {
          name: "a jurisdiction registered twice",
          request: patch({
            tax_registrations: [
              { country: "DE", number: "1" },
              { country: "DE", number: "2" },
            ],
          }),
          status: 422,
          loc: ["body", "tax_registrations", 1],
        },
        {
          name: "an overlong number",
          request: patch({ tax_registrations: [{ country: "DE", number: "9".repeat(65) }] }),
          status: 422,
          loc: ["body", "tax_registrations", 0, "number"],
        },
        {
          name: "registrations that are not a list",
          request: patch({ tax_registrations: { country: "DE", number: "1" } }),
          status: 422,
          loc: ["body", "tax_registrations"],
        },
        { name: "a non-UUID id", request: patch({}, { id: "nope" }), status: 422, loc: ["path", "id"] },
        { name: "another organization", request: () => patch({}, { id: otherOrg })(), status: 404 },
        { name: "no token", request: patch({}, { token: null }), status: 401 },
        { name: "a token without the write scope", request: () => patch({}, { token: readToken })(), status: 403 },
      ],
      // Nothing written: the registrations set by the first test stand.
      async () => {
        const stored = await ctx.request({ method: "GET", url: url(orgId), token: readToken });
        expect(stored.json().tax_registrations.map((entry: { country: string }) => entry.country)).toEqual(["FR", "CA"]);
      },
    );
  });
});
