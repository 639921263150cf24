import { spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, getRequest, jsonRequest, tokenRefusals } from "../../helpers/bad-inputs.ts";
import { type TestContext } from "../../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { projectRoot } from "../../helpers/process.ts";
import { openLicenseKeyWorld } from "./license-key-world.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let customerId: string;
let readToken: string;
let writeToken: string;
let otherToken: string;
let benefitsToken: string;

beforeAll(async () => {
  ({ ctx, orgId, otherOrgId, customerId } = await openLicenseKeyWorld());
  readToken = await createOrganizationToken(ctx.deps, orgId, ["license_keys:read"]);
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["license_keys:write"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["license_keys:write"]);
  benefitsToken = await createOrganizationToken(ctx.deps, orgId, ["benefits:write"]);
});
afterAll(() => ctx.close());

const FILE = "/v1/customer-portal/license-keys/license-file";
const jwksUrl = (id: string) => `/v1/organizations/${id}/license-keys/jwks`;
const newKey = (overrides: Parameters<typeof createLicenseKey>[3] = {}) => createLicenseKey(ctx.deps, orgId, customerId, overrides);

async function activate(key: { key: string }, conditions: Record<string, string> = {}): Promise<string> {
  const response = await ctx.request({
    method: "POST",
    url: "/v1/customer-portal/license-keys/activate",
    payload: { key: key.key, organization_id: orgId, label: "laptop", conditions },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ id: string }>().id;
}

interface LicenseFileBody {
  license_file: string;
  kid: string;
  issued_at: string;
  refresh_at: string;
}

async function publicFile(key: { key: string }, activationId: string): Promise<LicenseFileBody> {
  const response = await ctx.request({
    method: "POST",
    url: FILE,
    payload: { key: key.key, organization_id: orgId, activation_id: activationId },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

const jwks = async (id = orgId) => (await ctx.request({ method: "GET", url: jwksUrl(id) })).json<{ keys: { kid: string; x: string }[] }>();

/** The compact JWS inside the armor. */
const jwsOf = (file: string): string[] => file.split("\n").slice(1, -2).join("").split(".");
const armor = (parts: string[]): string =>
  ["-----BEGIN COMMERCE LICENSE-----", ...(parts.join(".").match(/.{1,64}/g) ?? []), "-----END COMMERCE LICENSE-----", ""].join("\n");
const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString()) as Record<string, unknown>;
const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

// Each example of the README, run as a user would; Python and Go where their toolchains are here.
const EXAMPLES = path.join(projectRoot, "examples", "license-verify");
const hasPythonCryptography = spawnSync("python3", ["-c", "import cryptography"]).status === 0;
const hasGo = spawnSync("go", ["version"]).status === 0;
const verifiers: { name: string; available: boolean; command: (file: string, keys: string) => [string, string[]] }[] = [
  { name: "node", available: true, command: (file, keys) => [process.execPath, [path.join(EXAMPLES, "verify.mjs"), file, keys]] },
  {
    name: "python",
    available: hasPythonCryptography,
    command: (file, keys) => ["python3", [path.join(EXAMPLES, "verify.py"), file, keys]],
  },
  { name: "go", available: hasGo, command: (file, keys) => ["go", ["run", path.join(EXAMPLES, "verify.go"), file, keys]] },
];
if (!hasPythonCryptography) console.warn("license-files: python3 with `cryptography` missing, the Python example is not run");
if (!hasGo) console.warn("license-files: `go` missing, the Go example is not run");

function runVerifier(verifier: (typeof verifiers)[number], file: string, keys: object): { ok: boolean; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "license-"));
  writeFileSync(path.join(dir, "license.txt"), file);
  writeFileSync(path.join(dir, "jwks.json"), JSON.stringify(keys));
  const [command, args] = verifier.command(path.join(dir, "license.txt"), path.join(dir, "jwks.json"));
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 60_000 });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

describe("GET /v1/organizations/{id}/license-keys/jwks", () => {
  it("publishes one Ed25519 key, made once however many first uses arrive at once", async () => {
    const fresh = (await createOrganization(ctx.deps)).id;
    const answers = await Promise.all(Array.from({ length: 6 }, () => ctx.request({ method: "GET", url: jwksUrl(fresh) })));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const bodies = answers.map((answer) => answer.json<{ keys: Record<string, string>[] }>());
    expect(bodies[0]!.keys).toHaveLength(1);
    expect(bodies[0]!.keys[0]).toEqual({
      kty: "OKP",
      crv: "Ed25519",
      x: expect.any(String),
      kid: expect.any(String),
      alg: "EdDSA",
      use: "sig",
    });
    expect(Buffer.from(bodies[0]!.keys[0]!.x!, "base64url")).toHaveLength(32);
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    const rows = await ctx.deps.db.selectFrom("license_signing_keys").selectAll().where("organization_id", "=", fresh).execute();
    expect(rows).toHaveLength(1);
    // Sealed: the private key is not in the row in the clear.
    expect(rows[0]!.private_key_sealed).toMatch(/^v1\./);
  });

  badInputTable(
    () => ctx.request,
    [
      {
        name: "an unknown organization",
        request: () => ({ method: "GET", url: jwksUrl("00000000-0000-4000-8000-000000000000") }),
        status: 404,
        error: "ResourceNotFound",
      },
      { name: "a non-UUID id", request: () => ({ method: "GET", url: jwksUrl("nope") }), status: 422, loc: ["path", "id"] },
    ],
  );
});

describe("license files", () => {
  it("issues a signed file to the public client that the README's examples verify", async () => {
    const key = await newKey({ expires_at: new Date(ctx.clock.now().getTime() + 365 * 86_400_000) });
    const activationId = await activate(key, { machine: "fp-1" });
    const body = await publicFile(key, activationId);
    expect(body.license_file).toMatch(/^-----BEGIN COMMERCE LICENSE-----\n[A-Za-z0-9_.-]{1,64}\n[\s\S]*-----END COMMERCE LICENSE-----\n$/);
    const [header, payload] = jwsOf(body.license_file);
    expect(decode(header!)).toEqual({ alg: "EdDSA", kid: body.kid, typ: "commerce-license+jws" });
    const customer = await ctx.deps.db.selectFrom("customers").select("email").where("id", "=", customerId).executeTakeFirstOrThrow();
    expect(decode(payload!)).toEqual({
      license_key_id: key.id,
      display_key: `****-${key.key.slice(-6)}`,
      organization_id: orgId,
      customer_id: customerId,
      customer_email: customer.email,
      benefit_id: key.benefit_id,
      limit_activations: 5,
      limit_usage: null,
      expires_at: key.expires_at!.toISOString(),
      activation: { id: activationId, label: "laptop", conditions: { machine: "fp-1" } },
      issued_at: ctx.clock.now().toISOString(),
      ttl: 30 * 86_400,
    });
    expect(body.license_file).not.toContain(key.key);
    expect(Buffer.from(payload!, "base64url").toString()).not.toContain(key.key);
    expect(body.refresh_at).toBe(new Date(ctx.clock.now().getTime() + 30 * 86_400_000).toISOString());
    const keys = await jwks();
    for (const verifier of verifiers.filter((v) => v.available)) {
      const result = runVerifier(verifier, body.license_file, keys);
      expect(result.ok, `${verifier.name}: ${result.output}`).toBe(true);
      expect(JSON.parse(result.output).activation.id, verifier.name).toBe(activationId);
    }
  });

  it("makes every example refuse a tampered file", async () => {
    const key = await newKey();
    const body = await publicFile(key, await activate(key));
    const [header, payload, signature] = jwsOf(body.license_file) as [string, string, string];
    const keys = await jwks();
    const flip = (part: string, at: number) => {
      const bytes = Buffer.from(part, "base64url");
      bytes[at] = bytes[at]! ^ 0x01;
      return bytes.toString("base64url");
    };
    const headerWith = (alg: string) => encode({ ...decode(header), alg });
    const hs256Header = headerWith("HS256");
    const publicKey = Buffer.from(keys.keys.find((k) => k.kid === body.kid)!.x, "base64url");
    const tampered = {
      "a payload byte": armor([header, flip(payload, 20), signature]),
      "a signature byte": armor([header, payload, flip(signature, 10)]),
      "alg none": armor([headerWith("none"), payload, ""]),
      "HS256 with the public key as secret": armor([
        hs256Header,
        payload,
        createHmac("sha256", publicKey).update(`${hs256Header}.${payload}`).digest("base64url"),
      ]),
    };
    for (const verifier of verifiers.filter((v) => v.available)) {
      for (const [name, file] of Object.entries(tampered))
        expect(runVerifier(verifier, file, keys).ok, `${verifier.name}: ${name}`).toBe(false);
    }
  });

  it("answers the merchant with license_keys:read, with the benefit's file lifetime", async () => {
    const key = await newKey({ license_file_ttl_days: 7 });
    const activationId = await activate(key);
    const response = await ctx.request({
      method: "GET",
      url: `/v1/license-keys/${key.id}/license-file?activation_id=${activationId}`,
      token: readToken,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(decode(jwsOf(response.json<LicenseFileBody>().license_file)[1]!)).toMatchObject({ license_key_id: key.id, ttl: 7 * 86_400 });
  });

  it("takes the file lifetime from the benefit's properties (an extension), on create and on edit", async () => {
    const created = await ctx.request({
      method: "POST",
      url: "/v1/benefits/",
      token: benefitsToken,
      payload: {
        type: "license_keys",
        description: "Desktop app",
        properties: { license_file_ttl_days: 14, heartbeat: { interval_seconds: 600, grace_seconds: 60 } },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().properties).toMatchObject({
      license_file_ttl_days: 14,
      heartbeat: { interval_seconds: 600, grace_seconds: 60 },
      limit_usage: null,
    });
    const tooLong = await ctx.request({
      method: "PATCH",
      url: `/v1/benefits/${created.json<{ id: string }>().id}`,
      token: benefitsToken,
      payload: { type: "license_keys", properties: { license_file_ttl_days: 366 } },
    });
    expect(tooLong.statusCode, tooLong.body).toBe(422);
    const tooOften = await ctx.request({
      method: "PATCH",
      url: `/v1/benefits/${created.json<{ id: string }>().id}`,
      token: benefitsToken,
      payload: { type: "license_keys", properties: { heartbeat: { interval_seconds: 5, grace_seconds: 0 } } },
    });
    expect(tooOften.statusCode, tooOften.body).toBe(422);
  });

  it("answers validate's 404s for a revoked, disabled or expired key and for a deactivated activation", async () => {
    const cases: [Parameters<typeof newKey>[0], string][] = [
      [{ status: "revoked" }, "License key is no longer active."],
      [{ status: "disabled" }, "License key is no longer active."],
      [{ expires_at: new Date(ctx.clock.now().getTime() - 1000) }, "License key has expired."],
    ];
    for (const [overrides, detail] of cases) {
      const key = await newKey();
      const activationId = await activate(key);
      await ctx.deps.db.updateTable("license_keys").set(overrides!).where("id", "=", key.id).execute();
      const response = await ctx.request({
        method: "POST",
        url: FILE,
        payload: { key: key.key, organization_id: orgId, activation_id: activationId },
      });
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json()).toEqual({ error: "ResourceNotFound", detail });
    }
    const key = await newKey();
    const activationId = await activate(key);
    await ctx.request({
      method: "POST",
      url: "/v1/customer-portal/license-keys/deactivate",
      payload: { key: key.key, organization_id: orgId, activation_id: activationId },
    });
    const response = await ctx.request({
      method: "POST",
      url: FILE,
      payload: { key: key.key, organization_id: orgId, activation_id: activationId },
    });
    expect(response.statusCode, response.body).toBe(404);
  });

  describe("bad input", () => {
    let key: { id: string; key: string };
    let activationId: string;
    let otherActivationId: string;
    let otherOrgKey: { id: string; key: string };
    beforeAll(async () => {
      key = await newKey();
      activationId = await activate(key);
      otherActivationId = await activate(await newKey());
      const otherCustomer = await createCustomer(ctx.deps, otherOrgId);
      otherOrgKey = await createLicenseKey(ctx.deps, otherOrgId, otherCustomer.id);
    });
    const body = (overrides: Record<string, unknown> = {}) => ({
      key: key.key,
      organization_id: orgId,
      activation_id: activationId,
      ...overrides,
    });
    const publicPost = jsonRequest("POST", FILE, () => null);

    badInputTable(
      () => ctx.request,
      [
        { name: "an unknown key", request: () => publicPost(body({ key: "NOPE" }))(), status: 404, error: "ResourceNotFound" },
        {
          name: "another organization's key",
          request: () => publicPost(body({ key: otherOrgKey.key }))(),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another key's activation",
          request: () => publicPost(body({ activation_id: otherActivationId }))(),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a missing activation_id",
          request: () => publicPost({ key: key.key, organization_id: orgId })(),
          status: 422,
          loc: ["body", "activation_id"],
        },
        {
          name: "a non-UUID activation_id",
          request: () => publicPost(body({ activation_id: "nope" }))(),
          status: 422,
          loc: ["body", "activation_id"],
        },
        { name: "a number as key", request: () => publicPost(body({ key: 5 }))(), status: 422, loc: ["body", "key"] },
        { name: "an overlong key", request: () => publicPost(body({ key: "K".repeat(257) }))(), status: 422, loc: ["body", "key"] },
      ],
    );

    const merchantGet =
      (query: () => string, as: () => string | null = () => readToken) =>
      () =>
        getRequest(`/v1/license-keys/${key.id}/license-file`, as)(query())();
    badInputTable(
      () => ctx.request,
      [
        {
          name: "another key's activation",
          request: merchantGet(() => `?activation_id=${otherActivationId}`),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's token",
          request: merchantGet(
            () => `?activation_id=${activationId}`,
            () => otherToken,
          ),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "a missing activation_id", request: merchantGet(() => ""), status: 422, loc: ["query", "activation_id"] },
        {
          name: "a non-UUID activation_id",
          request: merchantGet(() => "?activation_id=nope"),
          status: 422,
          loc: ["query", "activation_id"],
        },
        {
          name: "a non-UUID key id",
          request: () => ({ method: "GET", url: `/v1/license-keys/nope/license-file?activation_id=${activationId}`, token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        ...tokenRefusals((as) => merchantGet(() => `?activation_id=${activationId}`, as), {
          "a token without license_keys scopes": () => benefitsToken,
        }),
      ],
    );
  });
});

describe("POST /v1/organizations/{id}/license-keys/rotate-signing-key", () => {
  it("signs with a new key and keeps the old one published until its files are due for a refresh", async () => {
    const key = await newKey();
    const activationId = await activate(key);
    const before = await publicFile(key, activationId);
    const rotated = await ctx.request({
      method: "POST",
      url: `/v1/organizations/${orgId}/license-keys/rotate-signing-key`,
      token: writeToken,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const kids = rotated.json<{ keys: { kid: string }[] }>().keys.map((k) => k.kid);
    expect(kids).toHaveLength(2);
    expect(kids[1]).toBe(before.kid);
    const after = await publicFile(key, activationId);
    expect(after.kid).toBe(kids[0]);
    // The old file still verifies against the JWKS published after the rotation.
    expect(runVerifier(verifiers[0]!, before.license_file, await jwks()).ok).toBe(true);
    // Once the old key's last file is due for a refresh, it is no longer published.
    const start = ctx.clock.now();
    ctx.clock.set(new Date(before.refresh_at));
    try {
      expect((await jwks()).keys.map((k) => k.kid)).toEqual([after.kid]);
    } finally {
      ctx.clock.set(start);
    }
  });

  it("makes one new key when two rotations arrive at once", async () => {
    const fresh = (await createOrganization(ctx.deps)).id;
    const token = await createOrganizationToken(ctx.deps, fresh, ["license_keys:write"]);
    await jwks(fresh);
    const answers = await Promise.all(
      [1, 2].map(() => ctx.request({ method: "POST", url: `/v1/organizations/${fresh}/license-keys/rotate-signing-key`, token })),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const rows = await ctx.deps.db.selectFrom("license_signing_keys").selectAll().where("organization_id", "=", fresh).execute();
    expect(rows.filter((row) => row.retired_at === null)).toHaveLength(1);
  });

  const rotate =
    (as: () => string | null, id = () => orgId) =>
    () => ({
      method: "POST" as const,
      url: `/v1/organizations/${id()}/license-keys/rotate-signing-key`,
      token: as(),
    });
  badInputTable(
    () => ctx.request,
    [
      { name: "another organization", request: rotate(() => otherToken), status: 404, error: "ResourceNotFound" },
      {
        name: "a non-UUID id",
        request: rotate(
          () => writeToken,
          () => "nope",
        ),
        status: 422,
        loc: ["path", "id"],
      },
      ...tokenRefusals(rotate, { "a read-only token": () => readToken }),
    ],
  );
});

describe("documentation", () => {
  it("lists the license file operations under a tag that says they are extensions", async () => {
    const document = (await ctx.request({ method: "GET", url: "/openapi.json" })).json<{
      tags: { name: string; description: string }[];
      paths: Record<string, Record<string, { tags: string[]; description: string }>>;
    }>();
    expect(document.tags.find((tag) => tag.name === "license_files")?.description).toMatch(/^An extension of this service/);
    for (const [route, method] of [
      ["/v1/organizations/{id}/license-keys/jwks", "get"],
      ["/v1/organizations/{id}/license-keys/rotate-signing-key", "post"],
      ["/v1/license-keys/{id}/license-file", "get"],
      ["/v1/customer-portal/license-keys/license-file", "post"],
    ] as const) {
      const operation = document.paths[route]![method]!;
      expect(operation.tags, route).toEqual(["license_files"]);
      expect(operation.description, route).toMatch(/^An extension of this service/);
    }
  });
});

describe("README", () => {
  it("shows each verification example exactly as the tests run it", () => {
    const readme = readFileSync(path.join(projectRoot, "README.md"), "utf8");
    for (const file of ["verify.mjs", "verify.py", "verify.go"]) {
      expect(readme, file).toContain(readFileSync(path.join(EXAMPLES, file), "utf8").trimEnd());
    }
  });
});
