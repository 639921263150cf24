import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { type TestContext } from "../../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { openLicenseKeyWorld } from "./license-key-world.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let customerId: string;
let writeToken: string;
let readToken: string;
let otherToken: string;

beforeAll(async () => {
  ({ ctx, orgId, otherOrgId, customerId } = await openLicenseKeyWorld());
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["license_keys:write"]);
  readToken = await createOrganizationToken(ctx.deps, orgId, ["license_keys:read"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["license_keys:write"]);
});
afterAll(() => ctx.close());

const PUBLIC = "/v1/customer-portal/license-keys";
const SERVER = "/v1/license-keys";
const post = (url: string, payload: Record<string, unknown>, token: string | null = null) =>
  ctx.request({ method: "POST", url, payload, token });
const newKey = (overrides: Parameters<typeof createLicenseKey>[3] = {}) => createLicenseKey(ctx.deps, orgId, customerId, overrides);
const activationCount = async (keyId: string) =>
  Number(
    (
      await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM license_key_activations WHERE license_key_id = ${keyId} AND deleted_at IS NULL`.execute(ctx.deps.db)
    ).rows[0]!.n,
  );
/** A moment before the app's clock (frozen at the context's start): past for the app, however long the run. */
const ago = (ms: number) => new Date(ctx.clock.now().getTime() - ms);
const keyRow = (id: string) => ctx.deps.db.selectFrom("license_keys").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("POST .../license-keys/activate", () => {
  it("activates a key publicly and answers the activation with its key", async () => {
    const key = await newKey();
    const response = await post(`${PUBLIC}/activate`, {
      key: key.key,
      organization_id: orgId,
      label: "laptop",
      conditions: { major: 2 },
      meta: { os: "linux", cores: 8, ratio: 1.5, beta: true },
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:license_keys:activate", 200, body);
    expect(body).toMatchObject({
      license_key_id: key.id,
      label: "laptop",
      meta: { os: "linux", cores: 8, ratio: 1.5, beta: true },
      modified_at: null,
    });
    expect(body.conditions).toBeUndefined();
    expect(body.license_key).toMatchObject({
      id: key.id,
      key: key.key,
      display_key: `****-${key.key.slice(-6)}`,
      status: "granted",
      limit_activations: 5,
      customer: { id: customerId },
    });
    const stored = await ctx.deps.db.selectFrom("license_key_activations").selectAll().where("id", "=", body.id).executeTakeFirstOrThrow();
    expect(stored.conditions).toEqual({ major: 2 });
  });

  it("activates through the server route with license_keys:write", async () => {
    const key = await newKey();
    const response = await post(`${SERVER}/activate`, { key: key.key, organization_id: orgId, label: "server" }, writeToken);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("license_keys:activate", 200, response.json());
    expect(await activationCount(key.id)).toBe(1);
  });

  const refusals: [string, () => Parameters<typeof createLicenseKey>[3], string][] = [
    ["a revoked key", () => ({ status: "revoked" }), "License key is no longer active. This license key can not be activated."],
    [
      "a disabled key, even expired",
      () => ({ status: "disabled", expires_at: ago(60_000) }),
      "License key is no longer active. This license key can not be activated.",
    ],
    ["an expired key", () => ({ expires_at: ago(1000) }), "License key has expired."],
    ["an expired key without an activation limit", () => ({ expires_at: ago(1000), limit_activations: null }), "License key has expired."],
    [
      "a key without activations",
      () => ({ limit_activations: null }),
      "This license key does not support activations. Use the /validate endpoint instead to check license validity.",
    ],
    [
      "a key with a limit of 0",
      () => ({ limit_activations: 0 }),
      "This license key does not support activations. Use the /validate endpoint instead to check license validity.",
    ],
  ];
  for (const [name, overrides, detail] of refusals) {
    it(`refuses ${name} with 403 in the anchor's order`, async () => {
      const key = await newKey(overrides());
      const response = await post(`${PUBLIC}/activate`, { key: key.key, organization_id: orgId, label: "x" });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ error: "NotPermitted", detail });
      expectReferenceResponse("customer_portal:license_keys:activate", 403, response.json());
      expect(await activationCount(key.id)).toBe(0);
    });
  }

  it("refuses an activation past the limit, and deactivation frees the slot", async () => {
    const key = await newKey({ limit_activations: 1 });
    const first = await post(`${PUBLIC}/activate`, { key: key.key, organization_id: orgId, label: "one" });
    expect(first.statusCode).toBe(200);
    const refused = await post(`${PUBLIC}/activate`, { key: key.key, organization_id: orgId, label: "two" });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: "NotPermitted", detail: "License key activation limit already reached" });

    const deactivated = await post(`${PUBLIC}/deactivate`, { key: key.key, organization_id: orgId, activation_id: first.json().id });
    expect(deactivated.statusCode).toBe(204);
    expect(deactivated.body).toBe("");
    const again = await post(`${PUBLIC}/deactivate`, { key: key.key, organization_id: orgId, activation_id: first.json().id });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: "ResourceNotFound", detail: "Not found" });
    const retry = await post(`${PUBLIC}/activate`, { key: key.key, organization_id: orgId, label: "two" });
    expect(retry.statusCode).toBe(200);
    expect(await activationCount(key.id)).toBe(1);
  });

  it("deactivates whatever the key's status and expiry", async () => {
    const key = await newKey();
    const activation = (await post(`${SERVER}/activate`, { key: key.key, organization_id: orgId, label: "a" }, writeToken)).json();
    await ctx.deps.db
      .updateTable("license_keys")
      .set({ status: "revoked", expires_at: ago(1000) })
      .where("id", "=", key.id)
      .execute();
    const response = await post(`${SERVER}/deactivate`, { key: key.key, organization_id: orgId, activation_id: activation.id }, writeToken);
    expect(response.statusCode).toBe(204);
    expect(await activationCount(key.id)).toBe(0);
  });

  it("answers an unknown key, a foreign key and a deleted key alike", async () => {
    const foreignCustomer = await createCustomer(ctx.deps, otherOrgId);
    const foreign = await createLicenseKey(ctx.deps, otherOrgId, foreignCustomer.id);
    const deleted = await newKey({ deleted_at: new Date() });
    const attempts = [
      post(`${PUBLIC}/activate`, { key: "TEST-NOT-A-KEY", organization_id: orgId, label: "x" }),
      post(`${PUBLIC}/activate`, { key: foreign.key, organization_id: orgId, label: "x" }),
      post(`${PUBLIC}/activate`, { key: deleted.key, organization_id: orgId, label: "x" }),
      post(`${PUBLIC}/activate`, { key: foreign.key.toLowerCase(), organization_id: otherOrgId, label: "x" }),
      post(`${SERVER}/activate`, { key: foreign.key, organization_id: otherOrgId, label: "x" }, writeToken),
      post(`${SERVER}/validate`, { key: foreign.key, organization_id: otherOrgId }, writeToken),
      post(
        `${SERVER}/deactivate`,
        { key: foreign.key, organization_id: otherOrgId, activation_id: "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a" },
        writeToken,
      ),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "ResourceNotFound", detail: "Not found" });
    }
    expect(await activationCount(foreign.id)).toBe(0);
  });

  it("creates exactly the limit under 50 parallel activations, the rest 403, none 5xx", async () => {
    const key = await newKey({ limit_activations: 5 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(`${PUBLIC}/activate`, { key: key.key, organization_id: orgId, label: `device-${i}` })),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 403)).toHaveLength(45);
    expect(await activationCount(key.id)).toBe(5);
  });
});

describe("POST .../license-keys/validate", () => {
  it("validates, counts validations, stamps last_validated_at and increments usage", async () => {
    const key = await newKey({ limit_usage: 10 });
    const response = await post(`${PUBLIC}/validate`, {
      key: key.key,
      organization_id: orgId,
      increment_usage: 3,
      benefit_id: key.benefit_id,
      customer_id: customerId,
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("customer_portal:license_keys:validate", 200, body);
    expect(body).toMatchObject({
      id: key.id,
      usage: 3,
      limit_usage: 10,
      validations: 1,
      activation: null,
      last_validated_at: ctx.clock.now().toISOString(),
    });
    const server = await post(`${SERVER}/validate`, { key: key.key, organization_id: orgId }, writeToken);
    expect(server.statusCode, server.body).toBe(200);
    expectReferenceResponse("license_keys:validate", 200, server.json());
    expect(server.json()).toMatchObject({ usage: 3, validations: 2 });
  });

  it("checks the activation and its conditions", async () => {
    const key = await newKey();
    const activation = (
      await post(`${PUBLIC}/activate`, { key: key.key, organization_id: orgId, label: "a", conditions: { major: 2, host: "box" } })
    ).json();
    const ok = await post(`${PUBLIC}/validate`, {
      key: key.key,
      organization_id: orgId,
      activation_id: activation.id,
      conditions: { host: "box", major: 2 },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().activation).toMatchObject({ id: activation.id, label: "a", license_key_id: key.id });
    const cases: [Record<string, unknown>, string][] = [
      [{ activation_id: activation.id, conditions: { major: 3, host: "box" } }, "License key does not match required conditions"],
      [{ activation_id: activation.id, conditions: { major: 2 } }, "License key does not match required conditions"],
      [{ activation_id: activation.id }, "License key does not match required conditions"],
      [{ activation_id: "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a" }, "Not found"],
      [{ benefit_id: "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a" }, "License key does not match given benefit."],
      [{ customer_id: "3f9c4a2e-8b1d-4c6f-9a7e-2d5b8c1f0e3a" }, "License key does not match given user."],
    ];
    for (const [extra, detail] of cases) {
      const response = await post(`${PUBLIC}/validate`, { key: key.key, organization_id: orgId, ...extra });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "ResourceNotFound", detail });
      expectReferenceResponse("customer_portal:license_keys:validate", 404, response.json());
    }
    expect((await keyRow(key.id)).validations).toBe(1);
  });

  it("answers 404 for revoked, disabled and expired keys, with the anchor's messages", async () => {
    const cases: [Parameters<typeof createLicenseKey>[3], string][] = [
      [{ status: "revoked" }, "License key is no longer active."],
      [{ status: "disabled" }, "License key is no longer active."],
      // Expired by the app's clock, which the context fixes when it starts (wall time moves on).
      [{ expires_at: new Date(ctx.clock.now().getTime() - 1000) }, "License key has expired."],
    ];
    for (const [overrides, detail] of cases) {
      const key = await newKey(overrides);
      const response = await post(`${PUBLIC}/validate`, { key: key.key, organization_id: orgId });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: "ResourceNotFound", detail });
      expect((await keyRow(key.id)).validations).toBe(0);
    }
  });

  it("refuses usage past limit_usage with 400, and holds the limit under parallel increments", async () => {
    const key = await newKey({ limit_usage: 10, usage: 8 });
    const over = await post(`${PUBLIC}/validate`, { key: key.key, organization_id: orgId, increment_usage: 3 });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({ error: "BadRequest", detail: "License key only has 2 more usages." });
    expect((await keyRow(key.id)).usage).toBe(8);

    await ctx.deps.db.updateTable("license_keys").set({ usage: 0 }).where("id", "=", key.id).execute();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => post(`${PUBLIC}/validate`, { key: key.key, organization_id: orgId, increment_usage: 1 })),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 400)).toHaveLength(20);
    expect(await keyRow(key.id)).toMatchObject({ usage: 10, validations: 10 });
  });
});

describe("bad input", () => {
  let key: Awaited<ReturnType<typeof newKey>>;
  beforeAll(async () => {
    key = await newKey();
  });
  const activate =
    (payload: Record<string, unknown>, url = `${PUBLIC}/activate`, token: () => string | null = () => null) =>
    () => ({
      method: "POST" as const,
      url,
      token: token(),
      payload: { key: key.key, organization_id: orgId, label: "x", ...payload },
    });
  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
  badInputTable(
    () => ctx.request,
    [
      {
        name: "a missing label",
        request: () => ({ method: "POST", url: `${PUBLIC}/activate`, payload: { key: key.key, organization_id: orgId } }),
        status: 422,
        loc: ["body", "label"],
      },
      { name: "a numeric key", request: activate({ key: 42 }), status: 422, loc: ["body", "key"] },
      { name: "a non-UUID organization_id", request: activate({ organization_id: "nope" }), status: 422, loc: ["body", "organization_id"] },
      { name: "an overlong key", request: activate({ key: "K".repeat(1000) }), status: 422, loc: ["body", "key"] },
      { name: "an overlong label", request: activate({ label: "L".repeat(1000) }), status: 422, loc: ["body", "label"] },
      {
        name: "a meta value that is an object",
        request: activate({ meta: { nested: { a: 1 } } }),
        status: 422,
        loc: ["body", "meta", "nested"],
      },
      {
        name: "an empty condition value",
        request: activate({ conditions: { host: "" } }),
        status: 422,
        loc: ["body", "conditions", "host"],
      },
      { name: "an overlong meta value", request: activate({ meta: { v: "x".repeat(501) } }), status: 422, loc: ["body", "meta", "v"] },
      { name: "an overlong meta key", request: activate({ meta: { ["k".repeat(41)]: 1 } }), status: 422 },
      { name: "51 conditions", request: activate({ conditions: many }), status: 422, loc: ["body", "conditions"] },
      {
        name: "a negative increment_usage",
        request: () => ({
          method: "POST",
          url: `${PUBLIC}/validate`,
          payload: { key: key.key, organization_id: orgId, increment_usage: -1 },
        }),
        status: 422,
        loc: ["body", "increment_usage"],
      },
      {
        name: "a non-UUID activation_id",
        request: () => ({
          method: "POST",
          url: `${PUBLIC}/deactivate`,
          payload: { key: key.key, organization_id: orgId, activation_id: "x" },
        }),
        status: 422,
        loc: ["body", "activation_id"],
      },
      { name: "no token on the server route", request: activate({}, `${SERVER}/activate`), status: 401, error: "Unauthorized" },
      {
        name: "a wrong token on the server route",
        request: activate({}, `${SERVER}/activate`, () => "polar_oat_doesnotexist0000000000000000000000"),
        status: 401,
        error: "invalid_token",
      },
      {
        name: "a read-only token on the server route",
        request: activate({}, `${SERVER}/activate`, () => readToken),
        status: 403,
        error: "insufficient_scope",
      },
      {
        name: "another organization's token",
        request: activate({}, `${SERVER}/activate`, () => otherToken),
        status: 404,
        error: "ResourceNotFound",
      },
    ],
    async () => expect(await activationCount(key.id)).toBe(0),
  );
});
