import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  badInputTable,
  getRequest,
  jsonRequest,
  organizationIdRefusals,
  paginationRefusals,
  tokenRefusals,
} from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCheckout,
  createForeignToken,
  createOrganization,
  createOrganizationToken,
  createProduct,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let orgId: string;
let token: string;
let readToken: string;
let foreignToken: string;
/** A token of the organization without the custom-field scopes. */
let unscopedToken: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, readToken, unscopedToken],
  } = await openOrganizationContext(["custom_fields:write", "products:write"], ["custom_fields:read"], ["products:read"]));
  foreignToken = await createForeignToken(ctx.deps, ["custom_fields:write"]);
});
afterAll(() => ctx.close());

const create = (payload: unknown, as: string | null = token) =>
  ctx.request({ method: "POST", url: "/v1/custom-fields/", token: as, payload: payload as object });
const created = async (payload: Record<string, unknown>) => {
  const response = await create(payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; slug: string; [key: string]: unknown }>();
};
const fieldRows = async () =>
  (await ctx.deps.db.selectFrom("custom_fields").selectAll().orderBy("id").execute()).map((row) => ({
    ...row,
    properties: JSON.stringify(row.properties),
  }));

describe("POST /v1/custom-fields/", () => {
  it("creates a field of every type, with its properties, in the reference's shape", async () => {
    const shapes = [
      { type: "text", properties: { form_label: "Company", textarea: true, min_length: 2, max_length: 50 } },
      { type: "number", properties: { form_label: "Team size", ge: 1, le: 500 } },
      { type: "date", properties: { form_help_text: "Start of the contract", ge: 1767225600, le: 0 } },
      { type: "checkbox", properties: { form_label: "I accept the terms" } },
      { type: "select", properties: { form_placeholder: "Pick one", options: [{ value: "a", label: "Option A" }] } },
    ];
    for (const [i, shape] of shapes.entries()) {
      const response = await create({ ...shape, slug: `field-${shape.type}_${i}`, name: `Field ${i}`, metadata: { source: "test" } });
      expect(response.statusCode, response.body).toBe(201);
      expectReferenceResponse("custom-fields:create", 201, response.json());
      expect(response.json()).toEqual({
        id: expect.any(String),
        created_at: ctx.clock.now().toISOString(),
        modified_at: null,
        organization_id: orgId,
        metadata: { source: "test" },
        type: shape.type,
        slug: `field-${shape.type}_${i}`,
        name: `Field ${i}`,
        properties: shape.properties,
      });
    }
  });

  it("drops null and empty property values", async () => {
    const body = await created({
      type: "text",
      slug: "drops-empty",
      name: "Drops",
      properties: { form_label: "", form_help_text: null, form_placeholder: "Type here", max_length: null },
    });
    expect(body.properties).toEqual({ form_placeholder: "Type here" });
  });

  it("refuses a slug already used in the organization, and lets another organization use it", async () => {
    await created({ type: "checkbox", slug: "taken", name: "Taken", properties: {} });
    const response = await create({ type: "text", slug: "taken", name: "Again", properties: {} });
    expect(response.statusCode).toBe(422);
    expectReferenceResponse("custom-fields:create", 422, response.json());
    expect(response.json().detail).toEqual([
      {
        loc: ["body", "slug"],
        msg: "Value error, Custom field with this slug already exists.",
        type: "value_error",
        input: "taken",
        ctx: { error: {} },
      },
    ]);
    expect((await create({ type: "text", slug: "taken", name: "Theirs", properties: {} }, foreignToken)).statusCode).toBe(201);
  });

  it("lets the unique index decide parallel creations of one slug", async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create({ type: "text", slug: "race", name: `Race ${i}`, properties: {} })),
    );
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(1);
    const refused = responses.filter((r) => r.statusCode === 422);
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r.json().detail[0]).toMatchObject({ loc: ["body", "slug"], type: "value_error" });
    const rows = await ctx.deps.db.selectFrom("custom_fields").select("id").where("slug", "=", "race").execute();
    expect(rows).toHaveLength(1);
  });

  describe("bad input", () => {
    let before: unknown;
    beforeAll(async () => {
      before = await fieldRows();
    });
    const post = jsonRequest("POST", "/v1/custom-fields/", () => token);
    const text = { type: "text", slug: "bad-input", name: "Bad", properties: {} };

    badInputTable(
      () => ctx.request,
      [
        { name: "no type", request: post({ slug: "x", name: "x", properties: {} }), status: 422 },
        { name: "an unknown type", request: post({ ...text, type: "color" }), status: 422 },
        { name: "no slug", request: post({ type: "text", name: "x", properties: {} }), status: 422, loc: ["body", "slug"] },
        { name: "an uppercase slug", request: post({ ...text, slug: "Upper" }), status: 422, loc: ["body", "slug"] },
        { name: "a slug with spaces", request: post({ ...text, slug: "a b" }), status: 422, loc: ["body", "slug"] },
        { name: "an empty slug", request: post({ ...text, slug: "" }), status: 422, loc: ["body", "slug"] },
        { name: "an overlong slug", request: post({ ...text, slug: "s".repeat(101) }), status: 422, loc: ["body", "slug"] },
        { name: "an empty name", request: post({ ...text, name: "" }), status: 422, loc: ["body", "name"] },
        { name: "an overlong name", request: post({ ...text, name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        { name: "a name as a number", request: post({ ...text, name: 5 }), status: 422, loc: ["body", "name"] },
        { name: "no properties", request: post({ type: "text", slug: "x", name: "x" }), status: 422, loc: ["body", "properties"] },
        {
          name: "a negative min_length",
          request: post({ ...text, properties: { min_length: -1 } }),
          status: 422,
          loc: ["body", "properties", "min_length"],
        },
        {
          name: "a number bound beyond Int32",
          request: post({ ...text, type: "number", properties: { le: 2147483648 } }),
          status: 422,
          loc: ["body", "properties", "le"],
        },
        {
          name: "le below ge",
          request: post({ ...text, type: "number", properties: { ge: 10, le: 5 } }),
          status: 422,
          loc: ["body", "properties"],
        },
        {
          name: "a select without options",
          request: post({ ...text, type: "select", properties: {} }),
          status: 422,
          loc: ["body", "properties", "options"],
        },
        {
          name: "a select with no option",
          request: post({ ...text, type: "select", properties: { options: [] } }),
          status: 422,
          loc: ["body", "properties", "options"],
        },
        {
          name: "an option with an empty label",
          request: post({ ...text, type: "select", properties: { options: [{ value: "a", label: "" }] } }),
          status: 422,
          loc: ["body", "properties", "options", 0, "label"],
        },
        ...organizationIdRefusals(post, text),
        ...tokenRefusals((as) => post(text, as), { "a read-only token": () => readToken }),
      ],
      async () => expect(await fieldRows()).toEqual(before),
    );
  });
});

describe("GET /v1/custom-fields/", () => {
  let listOrg: string;
  let listToken: string;
  beforeAll(async () => {
    listOrg = (await createOrganization(ctx.deps)).id;
    listToken = await createOrganizationToken(ctx.deps, listOrg, ["custom_fields:write"]);
    for (const [slug, type, name] of [
      ["zeta", "text", "Alpha name"],
      ["beta", "number", "Zulu"],
      ["alpha", "select", "Middle"],
      ["gamma", "checkbox", "Search me"],
    ] as const) {
      ctx.clock.advance(1000);
      const properties = type === "select" ? { options: [{ value: "x", label: "X" }] } : {};
      expect((await create({ slug, type, name, properties }, listToken)).statusCode).toBe(201);
    }
  });
  const list = (query: string, as = listToken) => ctx.request({ method: "GET", url: `/v1/custom-fields/${query}`, token: as });
  const listRequest = getRequest("/v1/custom-fields/", () => listToken);
  const slugs = async (query: string) => {
    const response = await list(query);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("custom-fields:list", 200, response.json());
    return response.json<{ items: { slug: string }[] }>().items.map((item) => item.slug);
  };

  it("sorts by slug unless told otherwise", async () => {
    expect(await slugs("")).toEqual(["alpha", "beta", "gamma", "zeta"]);
    expect(await slugs("?sorting=-created_at")).toEqual(["gamma", "alpha", "beta", "zeta"]);
    expect(await slugs("?sorting=name")).toEqual(["zeta", "alpha", "gamma", "beta"]);
    expect(await slugs("?sorting=type&sorting=-slug")).toEqual(["gamma", "beta", "alpha", "zeta"]);
  });

  it("filters by type and by a query on name or slug", async () => {
    expect(await slugs("?type=text&type=number")).toEqual(["beta", "zeta"]);
    expect(await slugs("?query=SEARCH")).toEqual(["gamma"]);
    expect(await slugs("?query=alph")).toEqual(["alpha", "zeta"]);
  });

  it("pages, and shows only the token's organization", async () => {
    const response = await list("?limit=3&page=2");
    expect(response.json()).toMatchObject({ items: [{ slug: "zeta" }], pagination: { total_count: 4, max_page: 2 } });
    const mine = await list("", readToken);
    expect(mine.json<{ items: { organization_id: string }[] }>().items.every((item) => item.organization_id === orgId)).toBe(true);
  });

  badInputTable(
    () => ctx.request,
    [
      { name: "an unknown type", request: listRequest("?type=color"), status: 422 },
      { name: "an unknown sort key", request: listRequest("?sorting=size"), status: 422 },
      { name: "a non-UUID organization", request: listRequest("?organization_id=x"), status: 422 },
      ...paginationRefusals(listRequest),
      ...tokenRefusals((as) => listRequest("", as), { "a token without the scope": () => unscopedToken }),
    ],
  );
});

describe("GET, PATCH and DELETE /v1/custom-fields/{id}", () => {
  const url = (id: string) => `/v1/custom-fields/${id}`;
  const patch = (id: string, payload: unknown, as: string | null = token) =>
    ctx.request({ method: "PATCH", url: url(id), token: as, payload: payload as object });

  it("reads a field, and answers 404 for another organization's", async () => {
    const field = await created({ type: "number", slug: "readable", name: "Readable", properties: { ge: 0 } });
    const response = await ctx.request({ method: "GET", url: url(field.id), token: readToken });
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("custom-fields:get", 200, response.json());
    expect(response.json()).toEqual(field);
    const foreign = await ctx.request({ method: "GET", url: url(field.id), token: foreignToken });
    expect(foreign.statusCode).toBe(404);
    expectReferenceResponse("custom-fields:get", 404, foreign.json());
  });

  it("updates name, properties and metadata; a new slug renames the key of stored values", async () => {
    const field = await created({ type: "text", slug: "old-key", name: "Old", properties: { max_length: 10 } });
    const checkout = await createCheckout(ctx.deps, orgId, {
      products: [await createProduct(ctx.deps, orgId)],
      values: { custom_field_data: JSON.stringify({ "old-key": "kept", other: 1 }) },
    });
    ctx.clock.advance(5000);
    const response = await patch(field.id, {
      type: "text",
      slug: "new-key",
      name: "New",
      properties: { textarea: true },
      metadata: { v: 2 },
    });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("custom-fields:update", 200, response.json());
    expect(response.json()).toMatchObject({
      slug: "new-key",
      name: "New",
      properties: { textarea: true },
      metadata: { v: 2 },
      modified_at: ctx.clock.now().toISOString(),
    });
    const stored = await ctx.deps.db
      .selectFrom("checkouts")
      .select("custom_field_data")
      .where("id", "=", checkout.id)
      .executeTakeFirstOrThrow();
    expect(stored.custom_field_data).toEqual({ "new-key": "kept", other: 1 });
  });

  it("refuses a change of type, and a slug another field has", async () => {
    const field = await created({ type: "text", slug: "fixed-type", name: "Fixed", properties: {} });
    await created({ type: "text", slug: "other-slug", name: "Other", properties: {} });
    const typeChange = await patch(field.id, { type: "number" });
    expect(typeChange.statusCode).toBe(422);
    expectReferenceResponse("custom-fields:update", 422, typeChange.json());
    expect(typeChange.json().detail[0]).toMatchObject({
      loc: ["body", "type"],
      msg: "Value error, The type of a custom field can't be changed.",
    });
    const slugClash = await patch(field.id, { type: "text", slug: "other-slug" });
    expect(slugClash.json().detail[0]).toMatchObject({
      loc: ["body", "slug"],
      msg: "Value error, Custom field with this slug already exists.",
    });
    const unchanged = await ctx.request({ method: "GET", url: url(field.id), token });
    expect(unchanged.json()).toMatchObject({ slug: "fixed-type", type: "text", modified_at: null });
  });

  it("deletes a field: it disappears and is detached from products", async () => {
    const field = await created({ type: "checkbox", slug: "to-delete", name: "Delete me", properties: {} });
    const product = await ctx.request({
      method: "POST",
      url: "/v1/products/",
      token,
      payload: {
        name: "With field",
        prices: [{ amount_type: "fixed", price_amount: 1000 }],
        attached_custom_fields: [{ custom_field_id: field.id, required: true }],
      },
    });
    expect(product.json().attached_custom_fields).toHaveLength(1);
    const foreign = await ctx.request({ method: "DELETE", url: url(field.id), token: foreignToken });
    expect(foreign.statusCode).toBe(404);
    const response = await ctx.request({ method: "DELETE", url: url(field.id), token });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect((await ctx.request({ method: "GET", url: url(field.id), token })).statusCode).toBe(404);
    expect((await ctx.request({ method: "DELETE", url: url(field.id), token })).statusCode).toBe(404);
    const read = await ctx.request({
      method: "GET",
      url: `/v1/products/${product.json().id}`,
      token: await createOrganizationToken(ctx.deps, orgId, ["products:read"]),
    });
    expect(read.json().attached_custom_fields).toEqual([]);
    const links = await sql<{ n: string }>`SELECT count(*) AS n FROM product_custom_fields WHERE custom_field_id = ${field.id}`.execute(
      ctx.deps.db,
    );
    expect(Number(links.rows[0]!.n)).toBe(0);
    // The slug is free again.
    expect((await create({ type: "text", slug: "to-delete", name: "Again", properties: {} })).statusCode).toBe(201);
  });

  describe("bad input", () => {
    let fieldId: string;
    let before: unknown;
    beforeAll(async () => {
      fieldId = (
        await created({ type: "select", slug: "bad-patch", name: "Bad patch", properties: { options: [{ value: "a", label: "A" }] } })
      ).id;
      before = await fieldRows();
    });
    const request =
      (method: "GET" | "PATCH" | "DELETE", id: () => string, payload?: unknown, as: () => string | null = () => token) =>
      () => ({ method, url: url(id()), token: as(), ...(payload === undefined ? {} : { payload: payload as object }) });
    const select = { type: "select" };

    badInputTable(
      () => ctx.request,
      [
        { name: "a non-UUID id (GET)", request: request("GET", () => "nope"), status: 422, loc: ["path", "id"] },
        { name: "a non-UUID id (PATCH)", request: request("PATCH", () => "nope", select), status: 422, loc: ["path", "id"] },
        { name: "a non-UUID id (DELETE)", request: request("DELETE", () => "nope"), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: request("PATCH", () => "3f2b1c4d-1111-4222-8333-123456789abc", select), status: 404 },
        {
          name: "another organization's field (PATCH)",
          request: request(
            "PATCH",
            () => fieldId,
            select,
            () => foreignToken,
          ),
          status: 404,
        },
        {
          name: "another organization's field (DELETE)",
          request: request(
            "DELETE",
            () => fieldId,
            undefined,
            () => foreignToken,
          ),
          status: 404,
        },
        { name: "a PATCH without type", request: request("PATCH", () => fieldId, { name: "x" }), status: 422 },
        { name: "a change of type", request: request("PATCH", () => fieldId, { type: "text" }), status: 422, loc: ["body", "type"] },
        {
          name: "an uppercase slug",
          request: request("PATCH", () => fieldId, { ...select, slug: "ABC" }),
          status: 422,
          loc: ["body", "slug"],
        },
        { name: "an empty name", request: request("PATCH", () => fieldId, { ...select, name: "" }), status: 422, loc: ["body", "name"] },
        {
          name: "options emptied",
          request: request("PATCH", () => fieldId, { ...select, properties: { options: [] } }),
          status: 422,
          loc: ["body", "properties", "options"],
        },
        {
          name: "no token",
          request: request(
            "PATCH",
            () => fieldId,
            select,
            () => null,
          ),
          status: 401,
        },
        {
          name: "a read-only token (PATCH)",
          request: request(
            "PATCH",
            () => fieldId,
            select,
            () => readToken,
          ),
          status: 403,
        },
        {
          name: "a read-only token (DELETE)",
          request: request(
            "DELETE",
            () => fieldId,
            undefined,
            () => readToken,
          ),
          status: 403,
        },
        {
          name: "a token without the scope (GET)",
          request: request(
            "GET",
            () => fieldId,
            undefined,
            () => unscopedToken,
          ),
          status: 403,
        },
      ],
      async () => expect(await fieldRows()).toEqual(before),
    );
  });
});
