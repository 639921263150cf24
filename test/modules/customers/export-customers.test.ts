import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization, openOrganizationContext } from "../../helpers/factories.ts";

// GET /v1/customers/export: the hosted service's fixed columns, one row per live customer the caller may see.

let ctx: TestContext;
let orgId: string;
let foreignOrgId: string;
let readToken: string;
let sessionsToken: string;

const HEADER =
  "ID,External ID,Created At,Email,Name,Tax ID,Billing Address Line 1,Billing Address Line 2,Billing Address City," +
  "Billing Address State,Billing Address Zip,Billing Address Country,Metadata";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken, sessionsToken],
  } = await openOrganizationContext(["customers:read"], ["customer_sessions:write"]));
  foreignOrgId = (await createOrganization(ctx.deps)).id;
  await createCustomer(ctx.deps, foreignOrgId, { email: "foreign@example.com" });
});
afterAll(() => ctx.close());

const exportCsv = (query = "", token: string | null = readToken) =>
  ctx.request({ method: "GET", url: `/v1/customers/export${query}`, token });

describe("GET /v1/customers/export", () => {
  it("writes every live customer of the organization, newest first, in the fixed columns", async () => {
    const older = await createCustomer(ctx.deps, orgId, {
      created_at: new Date("2027-01-01T10:00:00.000Z"),
      email: "plain@example.com",
      name: null,
    });
    const newer = await createCustomer(ctx.deps, orgId, {
      created_at: new Date("2027-02-01T10:00:00.000Z"),
      email: "full@example.com",
      external_id: "usr_1",
      name: "=HYPERLINK(1)",
      tax_id: JSON.stringify(["DE136695976", "eu_vat"]),
      billing_address: JSON.stringify({
        country: "DE",
        line1: "Unter den Linden 1",
        line2: "Hof, links",
        postal_code: "10117",
        city: "Berlin",
        state: null,
      }),
      metadata: JSON.stringify({ plan: "pro", seats: 3 }),
    });
    await createCustomer(ctx.deps, orgId, { email: "deleted@example.com", deleted_at: new Date() });

    const response = await exportCsv();
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers["content-type"]).toContain("text/csv");
    expect(response.headers["content-disposition"]).toBe('attachment; filename="polar-customers.csv"');
    expect(response.body).toBe(
      [
        HEADER,
        // A formula-like name is defused; the tax ID is the stored pair's text; the metadata is JSON.
        `${newer.id},usr_1,2027-02-01T10:00:00.000Z,full@example.com,'=HYPERLINK(1),"['DE136695976', 'eu_vat']",` +
          `Unter den Linden 1,"Hof, links",Berlin,,10117,DE,"{""plan"":""pro"",""seats"":3}"`,
        `${older.id},,2027-01-01T10:00:00.000Z,plain@example.com,,,,,,,,,{}`,
        "",
      ].join("\n"),
    );
  });

  it("filters by organization: another organization's ID gives the header alone", async () => {
    const own = await exportCsv(`?organization_id=${orgId}`);
    expect(own.body.split("\n").length).toBeGreaterThan(2);
    const foreign = await exportCsv(`?organization_id=${foreignOrgId}`);
    expect(foreign.statusCode).toBe(200);
    expect(foreign.body).toBe(`${HEADER}\n`);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID organization_id",
        request: () => ({ method: "GET", url: "/v1/customers/export?organization_id=nope", token: readToken }),
        status: 422,
        loc: ["query", "organization_id"],
      },
      { name: "no token", request: () => ({ method: "GET", url: "/v1/customers/export" }), status: 401, error: "Unauthorized" },
      {
        name: "a token without a customers scope",
        request: () => ({ method: "GET", url: "/v1/customers/export", token: sessionsToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );
});
