import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasValidChecksum } from "../../../src/values/tokens.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createWebhookEndpoint } from "../../helpers/webhooks.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let writeToken: string;
let readToken: string;
let otherToken: string;
let noScopeToken: string;

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  otherOrgId = (await createOrganization(ctx.deps)).id;
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["webhooks:write"]);
  readToken = await createOrganizationToken(ctx.deps, orgId, ["webhooks:read"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["webhooks:write"]);
  noScopeToken = await createOrganizationToken(ctx.deps, orgId, ["checkouts:read"]);
});
afterAll(() => ctx.close());

const endpointCount = async () =>
  Number(
    (
      await ctx.deps.db
        .selectFrom("webhook_endpoints")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );
const create = (payload: unknown, token: string | null = writeToken) =>
  ctx.request({ method: "POST", url: "/v1/webhooks/endpoints", token, payload: payload as object });
const UNKNOWN_ID = "3f2b1c4d-1111-4222-8333-123456789abc";

describe("POST /v1/webhooks/endpoints", () => {
  it("creates an endpoint for the token's organization and shows its whsec_ secret", async () => {
    const response = await create({
      url: "https://hooks.example.com/a",
      name: "Orders",
      format: "raw",
      events: ["order.paid", "order.updated", "order.paid"],
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expectReferenceResponse("webhooks:create_webhook_endpoint", 201, body);
    expect(body).toEqual({
      id: expect.any(String),
      created_at: ctx.clock.now().toISOString(),
      modified_at: null,
      url: "https://hooks.example.com/a",
      name: "Orders",
      format: "raw",
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{43}$/),
      organization_id: orgId,
      events: ["order.paid", "order.updated"],
      enabled: true,
    });
    expect(hasValidChecksum(body.secret, "whsec_")).toBe(true);
    const stored = await ctx.deps.db
      .selectFrom("webhook_endpoints")
      .select("secret_sealed")
      .where("id", "=", body.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret_sealed).not.toContain(body.secret.slice(6));
    // The same secret is shown on later reads: the reference always carries it.
    expect((await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${body.id}`, token: readToken })).json().secret).toBe(
      body.secret,
    );
  });

  it("lets the owner create for a named organization, and requires the name", async () => {
    const created = await create(
      { url: "https://hooks.example.com/owner", format: "raw", events: [], organization_id: otherOrgId },
      ctx.ownerToken,
    );
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ organization_id: otherOrgId, name: null, events: [] });
    const missing = await create({ url: "https://hooks.example.com/owner", format: "raw", events: [] }, ctx.ownerToken);
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toEqual([{ loc: ["body", "organization_id"], msg: "Field required", type: "missing", input: null }]);
  });

  it("accepts http only to a loopback address in this (test) configuration", async () => {
    expect((await create({ url: "http://127.0.0.1:9/hook", format: "raw", events: [] })).statusCode).toBe(201);
    expect((await create({ url: "http://localhost:9/hook", format: "raw", events: [] })).statusCode).toBe(201);
    const remote = await create({ url: "http://hooks.example.com/hook", format: "raw", events: [] });
    expect(remote.statusCode).toBe(422);
    expect(remote.json().detail[0]).toMatchObject({ loc: ["body", "url"], msg: "Value error, The URL must use https." });
  });

  it("creates concurrently without interference, each with its own secret", async () => {
    const before = await endpointCount();
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create({ url: `https://hooks.example.com/p${i}`, format: "raw", events: ["checkout.created"] })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(12).fill(201));
    expect(new Set(responses.map((r) => r.json().secret)).size).toBe(12);
    expect(await endpointCount()).toBe(before + 12);
  });

  describe("bad input", () => {
    let before = 0;
    beforeAll(async () => {
      before = await endpointCount();
    });
    const valid = { url: "https://hooks.example.com/x", format: "raw", events: ["order.created"] };
    badInputTable(
      () => ctx.request,
      [
        { name: "no body", request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken }), status: 422 },
        {
          name: "a missing url",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken, payload: { format: "raw", events: [] } }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "a missing format",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken, payload: { url: valid.url, events: [] } }),
          status: 422,
          loc: ["body", "format"],
        },
        {
          name: "missing events",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken, payload: { url: valid.url, format: "raw" } }),
          status: 422,
          loc: ["body", "events"],
        },
        {
          name: "a url that is not a string",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken, payload: { ...valid, url: 42 } }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "a url that is not a URL",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken, payload: { ...valid, url: "not a url" } }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "an overlong url",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, url: `https://a.example.com/${"x".repeat(2100)}` },
          }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "an ftp url",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, url: "ftp://files.example.com/" },
          }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "a private address",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, url: "https://10.1.2.3/hook" },
          }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "the link-local metadata address",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, url: "https://169.254.169.254/latest" },
          }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "an IPv6 unique-local address",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, url: "https://[fd00::1]/hook" },
          }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "an unknown format",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken, payload: { ...valid, format: "xml" } }),
          status: 422,
          loc: ["body", "format"],
        },
        {
          name: "the slack format (not rendered here)",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: writeToken, payload: { ...valid, format: "slack" } }),
          status: 422,
          loc: ["body", "format"],
        },
        {
          name: "an unknown event type",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, events: ["order.created", "order.exploded"] },
          }),
          status: 422,
          loc: ["body", "events", 1],
        },
        {
          name: "events that are not a list",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, events: "order.created" },
          }),
          status: 422,
          loc: ["body", "events"],
        },
        {
          name: "an overlong name",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, name: "n".repeat(257) },
          }),
          status: 422,
          loc: ["body", "name"],
        },
        {
          name: "an unknown field",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, secret: "whsec_mine" },
          }),
          status: 422,
          loc: ["body", "secret"],
        },
        {
          name: "organization_id with an organization token",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: writeToken,
            payload: { ...valid, organization_id: orgId },
          }),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "a non-UUID organization_id",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: ctx.ownerToken,
            payload: { ...valid, organization_id: "acme" },
          }),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "an unknown organization_id",
          request: () => ({
            method: "POST",
            url: "/v1/webhooks/endpoints",
            token: ctx.ownerToken,
            payload: { ...valid, organization_id: UNKNOWN_ID },
          }),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "no token",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", payload: valid }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "a malformed token",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: "polar_oat_nope", payload: valid }),
          status: 401,
          error: "invalid_token",
        },
        {
          name: "a read-only token",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: readToken, payload: valid }),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "a token without webhook scopes",
          request: () => ({ method: "POST", url: "/v1/webhooks/endpoints", token: noScopeToken, payload: valid }),
          status: 403,
          error: "insufficient_scope",
        },
      ],
      async () => expect(await endpointCount()).toBe(before),
    );

    it("answers 422 in the reference's validation shape", async () => {
      const response = await create({ url: "https://10.1.2.3/hook", format: "raw", events: [] });
      expect(response.statusCode, response.body).toBe(422);
      expectReferenceResponse("webhooks:create_webhook_endpoint", 422, response.json());
      expect(response.json()).toEqual({
        error: "RequestValidationError",
        detail: [
          {
            loc: ["body", "url"],
            msg: "Value error, 10.1.2.3 is a private or link-local address",
            type: "value_error",
            input: "https://10.1.2.3/hook",
            ctx: { error: {} },
          },
        ],
      });
    });
  });
});

describe("GET /v1/webhooks/endpoints and /{id}", () => {
  let listOrgId: string;
  let listToken: string;
  let ids: string[];
  beforeAll(async () => {
    listOrgId = (await createOrganization(ctx.deps)).id;
    listToken = await createOrganizationToken(ctx.deps, listOrgId, ["webhooks:read"]);
    ids = [];
    for (let i = 0; i < 3; i += 1) {
      ctx.clock.advance(1000);
      ids.push((await createWebhookEndpoint(ctx.deps, listOrgId, { url: `https://hooks.example.com/l${i}` })).id);
    }
  });

  it("lists the organization's endpoints, newest first, paginated", async () => {
    const first = await ctx.request({ method: "GET", url: "/v1/webhooks/endpoints?limit=2", token: listToken });
    expect(first.statusCode).toBe(200);
    expectReferenceResponse("webhooks:list_webhook_endpoints", 200, first.json());
    expect(first.json().pagination).toEqual({ total_count: 3, max_page: 2 });
    expect(first.json().items.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    const second = await ctx.request({ method: "GET", url: "/v1/webhooks/endpoints?limit=2&page=2", token: listToken });
    expect(second.json().items.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect(second.json().items[0].secret).toMatch(/^whsec_/);
  });

  it("filters the owner's view by organization, and never shows another organization to a token", async () => {
    const owner = await ctx.request({
      method: "GET",
      url: `/v1/webhooks/endpoints?organization_id=${listOrgId}&limit=100`,
      token: ctx.ownerToken,
    });
    expect(owner.json().pagination.total_count).toBe(3);
    const foreign = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints?organization_id=${listOrgId}`, token: readToken });
    expect(foreign.json()).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
  });

  it("gets one endpoint; another organization's id is 404 like an unknown one", async () => {
    const response = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${ids[0]}`, token: listToken });
    expect(response.statusCode).toBe(200);
    expectReferenceResponse("webhooks:get_webhook_endpoint", 200, response.json());
    expect(response.json()).toMatchObject({ id: ids[0], url: "https://hooks.example.com/l0", organization_id: listOrgId });
    const foreign = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${ids[0]}`, token: readToken });
    const unknown = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${UNKNOWN_ID}`, token: readToken });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(unknown.json());
    expectReferenceResponse("webhooks:get_webhook_endpoint", 404, foreign.json());
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "a non-UUID id",
        request: () => ({ method: "GET", url: "/v1/webhooks/endpoints/nope", token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an overlong id",
        request: () => ({ method: "GET", url: `/v1/webhooks/endpoints/${"a".repeat(3000)}`, token: readToken }),
        status: 422,
        loc: ["path", "id"],
      },
      {
        name: "an unknown id",
        request: () => ({ method: "GET", url: `/v1/webhooks/endpoints/${UNKNOWN_ID}`, token: readToken }),
        status: 404,
        error: "ResourceNotFound",
      },
      {
        name: "a page of zero",
        request: () => ({ method: "GET", url: "/v1/webhooks/endpoints?page=0", token: readToken }),
        status: 422,
        loc: ["query", "page"],
      },
      {
        name: "a limit that is not a number",
        request: () => ({ method: "GET", url: "/v1/webhooks/endpoints?limit=ten", token: readToken }),
        status: 422,
        loc: ["query", "limit"],
      },
      {
        name: "a non-UUID organization filter",
        request: () => ({ method: "GET", url: "/v1/webhooks/endpoints?organization_id=acme", token: readToken }),
        status: 422,
      },
      {
        name: "no token on the list",
        request: () => ({ method: "GET", url: "/v1/webhooks/endpoints" }),
        status: 401,
        error: "Unauthorized",
      },
      {
        name: "a token without the scope",
        request: () => ({ method: "GET", url: "/v1/webhooks/endpoints", token: noScopeToken }),
        status: 403,
        error: "insufficient_scope",
      },
    ],
  );

  it("clamps an oversized limit to 100: 101 endpoints take two pages", async () => {
    const org = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, org.id, ["webhooks:read"]);
    for (let i = 0; i < 101; i += 1) await createWebhookEndpoint(ctx.deps, org.id, { url: `https://hooks.example.com/cap${i}` });
    const first = await ctx.request({ method: "GET", url: "/v1/webhooks/endpoints?limit=1000", token });
    expect(first.statusCode).toBe(200);
    expect(first.json().items).toHaveLength(100);
    expect(first.json().pagination).toEqual({ total_count: 101, max_page: 2 });
    const second = await ctx.request({ method: "GET", url: "/v1/webhooks/endpoints?limit=1000&page=2", token });
    expect(second.json().items).toHaveLength(1);
  });

  it("answers an empty page past the end", async () => {
    const response = await ctx.request({ method: "GET", url: "/v1/webhooks/endpoints?limit=1000&page=2147483647", token: listToken });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ items: [], pagination: { total_count: 3, max_page: 1 } });
  });
});

describe("PATCH and DELETE /v1/webhooks/endpoints/{id}", () => {
  const patch = (id: string, payload: unknown, token: string | null = writeToken) =>
    ctx.request({ method: "PATCH", url: `/v1/webhooks/endpoints/${id}`, token, payload: payload as object });

  it("changes the given fields; null keeps a field, except the name which it clears", async () => {
    const endpoint = await createWebhookEndpoint(ctx.deps, orgId, { name: "Before" });
    ctx.clock.advance(5000);
    const response = await patch(endpoint.id, {
      url: "https://hooks.example.com/after",
      events: ["checkout.created"],
      name: null,
      format: null,
      enabled: null,
    });
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("webhooks:update_webhook_endpoint", 200, response.json());
    expect(response.json()).toEqual({
      ...endpoint,
      url: "https://hooks.example.com/after",
      events: ["checkout.created"],
      name: null,
      modified_at: ctx.clock.now().toISOString(),
    });
  });

  it("disables and re-enables", async () => {
    const endpoint = await createWebhookEndpoint(ctx.deps, orgId);
    expect((await patch(endpoint.id, { enabled: false })).json().enabled).toBe(false);
    expect((await patch(endpoint.id, { enabled: true })).json().enabled).toBe(true);
  });

  describe("applies concurrent updates one after the other", () => {
    const read = async (id: string) => (await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${id}`, token: readToken })).json();

    it("never mixes two requests: each answers and the endpoint keeps one request's name and URL together", async () => {
      const endpoint = await createWebhookEndpoint(ctx.deps, orgId);
      const requests = Array.from({ length: 10 }, (_, i) => ({ name: `name-${i}`, url: `https://hooks.example.com/race-${i}` }));
      const responses = await Promise.all(requests.map((body) => patch(endpoint.id, body)));
      expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
      // Each request saw its own change whole.
      expect(responses.map((r) => ({ name: r.json().name, url: r.json().url }))).toEqual(requests);
      const final = await read(endpoint.id);
      expect(requests).toContainEqual({ name: final.name, url: final.url });
    });

    it("loses no update: requests changing different fields all land, each answer seeing the ones before it", async () => {
      // Several rounds, so that an unlocked read-modify-write has many chances to show.
      for (let round = 0; round < 5; round += 1) {
        const endpoint = await createWebhookEndpoint(ctx.deps, orgId, { name: "Before", events: ["order.created"] });
        const changes = [
          { name: "After" },
          { url: `https://hooks.example.com/moved-${round}` },
          { events: ["checkout.created", "order.paid"] },
          { enabled: false },
        ];
        const responses = await Promise.all(changes.map((body) => patch(endpoint.id, body)));
        expect(responses.map((r) => r.statusCode)).toEqual(changes.map(() => 200));
        const final = await read(endpoint.id);
        const applied = (body: Record<string, unknown>) =>
          changes.filter((change) => Object.entries(change).every(([key, value]) => JSON.stringify(body[key]) === JSON.stringify(value)));
        expect(applied(final)).toEqual(changes);
        // Applied one after the other, the answers saw 1, 2, 3 and 4 of the changes, each including the one before.
        const seen = responses.map((r) => applied(r.json())).sort((a, b) => a.length - b.length);
        expect(seen.map((list) => list.length)).toEqual([1, 2, 3, 4]);
        for (let i = 1; i < seen.length; i += 1) expect(seen[i]).toEqual(expect.arrayContaining(seen[i - 1]!));
      }
    });
  });

  it("deletes: 204, then 404 everywhere, and gone from the list", async () => {
    const endpoint = await createWebhookEndpoint(ctx.deps, orgId);
    const response = await ctx.request({ method: "DELETE", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: writeToken });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect((await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: readToken })).statusCode).toBe(404);
    expect((await patch(endpoint.id, { name: "x" })).statusCode).toBe(404);
    expect((await ctx.request({ method: "DELETE", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: writeToken })).statusCode).toBe(404);
    const listed = (await ctx.request({ method: "GET", url: "/v1/webhooks/endpoints?limit=100", token: readToken })).json();
    expect(listed.items.map((e: { id: string }) => e.id)).not.toContain(endpoint.id);
  });

  describe("bad input", () => {
    let endpointId: string;
    let foreignId: string;
    let snapshot: unknown;
    const read = () =>
      ctx.deps.db.selectFrom("webhook_endpoints").selectAll().where("id", "in", [endpointId, foreignId]).orderBy("id").execute();
    beforeAll(async () => {
      endpointId = (await createWebhookEndpoint(ctx.deps, orgId)).id;
      foreignId = (await createWebhookEndpoint(ctx.deps, otherOrgId)).id;
      snapshot = await read();
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "a url that is not a string",
          request: () => ({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpointId}`, token: writeToken, payload: { url: 1 } }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "a plain-http remote url",
          request: () => ({
            method: "PATCH",
            url: `/v1/webhooks/endpoints/${endpointId}`,
            token: writeToken,
            payload: { url: "http://hooks.example.com/" },
          }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "a private url",
          request: () => ({
            method: "PATCH",
            url: `/v1/webhooks/endpoints/${endpointId}`,
            token: writeToken,
            payload: { url: "https://192.168.1.10/" },
          }),
          status: 422,
          loc: ["body", "url"],
        },
        {
          name: "enabled as a string",
          request: () => ({
            method: "PATCH",
            url: `/v1/webhooks/endpoints/${endpointId}`,
            token: writeToken,
            payload: { enabled: "false" },
          }),
          status: 422,
          loc: ["body", "enabled"],
        },
        {
          name: "an unknown event",
          request: () => ({
            method: "PATCH",
            url: `/v1/webhooks/endpoints/${endpointId}`,
            token: writeToken,
            payload: { events: ["nope"] },
          }),
          status: 422,
          loc: ["body", "events", 0],
        },
        {
          name: "the discord format",
          request: () => ({
            method: "PATCH",
            url: `/v1/webhooks/endpoints/${endpointId}`,
            token: writeToken,
            payload: { format: "discord" },
          }),
          status: 422,
          loc: ["body", "format"],
        },
        {
          name: "an overlong name",
          request: () => ({
            method: "PATCH",
            url: `/v1/webhooks/endpoints/${endpointId}`,
            token: writeToken,
            payload: { name: "n".repeat(300) },
          }),
          status: 422,
          loc: ["body", "name"],
        },
        {
          name: "an unknown field",
          request: () => ({
            method: "PATCH",
            url: `/v1/webhooks/endpoints/${endpointId}`,
            token: writeToken,
            payload: { organization_id: otherOrgId },
          }),
          status: 422,
          loc: ["body", "organization_id"],
        },
        {
          name: "a non-UUID id",
          request: () => ({ method: "PATCH", url: "/v1/webhooks/endpoints/123", token: writeToken, payload: { name: "x" } }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "another organization's endpoint",
          request: () => ({ method: "PATCH", url: `/v1/webhooks/endpoints/${foreignId}`, token: writeToken, payload: { name: "mine" } }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "deleting another organization's endpoint",
          request: () => ({ method: "DELETE", url: `/v1/webhooks/endpoints/${foreignId}`, token: writeToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "deleting with a non-UUID id",
          request: () => ({ method: "DELETE", url: "/v1/webhooks/endpoints/zzz", token: writeToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "no token",
          request: () => ({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpointId}`, payload: { name: "x" } }),
          status: 401,
          error: "Unauthorized",
        },
        {
          name: "a read-only token",
          request: () => ({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpointId}`, token: readToken, payload: { name: "x" } }),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "deleting with a read-only token",
          request: () => ({ method: "DELETE", url: `/v1/webhooks/endpoints/${endpointId}`, token: readToken }),
          status: 403,
          error: "insufficient_scope",
        },
        {
          name: "deleting with another organization's token",
          request: () => ({ method: "DELETE", url: `/v1/webhooks/endpoints/${endpointId}`, token: otherToken }),
          status: 404,
          error: "ResourceNotFound",
        },
      ],
      async () => expect(await read()).toEqual(snapshot),
    );
  });
});

describe("OpenAPI document", () => {
  it("documents every webhook operation with its scopes", async () => {
    const response = await ctx.request({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const paths = response.json().paths as Record<string, Record<string, { operationId: string; security: Record<string, string[]>[] }>>;
    expect(paths["/v1/webhooks/events/{id}/redeliver"]?.post?.operationId).toBe("webhooks:redeliver_webhook_event");
    expect(paths["/v1/webhooks/endpoints"]?.post?.security).toEqual([{ pat: ["webhooks:write"] }, { oat: ["webhooks:write"] }]);
    expect(paths["/v1/webhooks/deliveries"]?.get?.security).toEqual([
      { pat: ["webhooks:read", "webhooks:write"] },
      { oat: ["webhooks:read", "webhooks:write"] },
    ]);
    expect(Object.keys(paths["/v1/webhooks/endpoints/{id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
  });
});
