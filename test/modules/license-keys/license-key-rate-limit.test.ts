import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeEndedWindows } from "../../../src/http/rate-limit-counters.repository.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrganization } from "../../helpers/factories.ts";

// Both stores (RATE_LIMIT_STORE): the same limits, answered the same way. Across processes:
// test/reliability/shared-rate-limits.test.ts.

let ctx: TestContext;
let orgId: string;
let foreignKey: string;

const open = async (store: string, env: Record<string, string> = {}) => {
  ctx = await createTestContext({
    env: {
      ...env,
      RATE_LIMIT_STORE: store,
      LICENSE_KEY_RATE_LIMIT_PER_ADDRESS: "5",
      LICENSE_KEY_RATE_LIMIT_PER_KEY: "3",
      LICENSE_KEY_RATE_LIMIT_WINDOW_MS: "60000",
    },
  });
  orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  foreignKey = (await createLicenseKey(ctx.deps, otherOrgId, (await createCustomer(ctx.deps, otherOrgId)).id)).key;
};

const validate = (key: string, remoteAddress: string) =>
  ctx.request({
    method: "POST",
    url: "/v1/customer-portal/license-keys/validate",
    payload: { key, organization_id: orgId },
    remoteAddress,
  });
const trace = async (key: string, address: string, times: number) => {
  const out: { status: number; body: string; retryAfter: unknown }[] = [];
  for (let i = 0; i < times; i += 1) {
    const response = await validate(key, address);
    out.push({ status: response.statusCode, body: response.body, retryAfter: response.headers["retry-after"] });
  }
  return out;
};

describe.each(["memory", "postgres"])("public license-key routes rate limits (RATE_LIMIT_STORE=%s)", (store) => {
  beforeAll(() => open(store));
  afterAll(() => ctx.close());

  it("limits one key across addresses, answering 429 with Retry-After", async () => {
    const results = await trace("TEST-UNKNOWN-ONE", "10.0.0.1", 4);
    expect(results.map((r) => r.status)).toEqual([404, 404, 404, 429]);
    expect(JSON.parse(results[3]!.body)).toEqual({ error: "TooManyRequests", detail: "Rate limit exceeded, retry later." });
    expect(Number(results[3]!.retryAfter)).toBeGreaterThan(0);
    expect(Number(results[3]!.retryAfter)).toBeLessThanOrEqual(60);
    expect((await validate("TEST-UNKNOWN-ONE", "10.0.0.2")).statusCode).toBe(429);
  });

  it("counts the license-file and heartbeat routes (extensions) in the same buckets as the key's other actions", async () => {
    const send = (path: string) =>
      ctx.request({
        method: "POST",
        url: `/v1/customer-portal/license-keys/${path}`,
        payload: { key: "TEST-SHARED", organization_id: orgId, activation_id: "00000000-0000-4000-8000-000000000000" },
        remoteAddress: "10.0.0.9",
      });
    const statuses = [(await send("license-file")).statusCode, (await send("heartbeat")).statusCode];
    statuses.push((await validate("TEST-SHARED", "10.0.0.9")).statusCode, (await send("license-file")).statusCode);
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  it("limits one address across keys", async () => {
    const statuses = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await validate(`TEST-SPRAY-${i}`, "10.0.0.3")).statusCode);
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    expect((await validate("TEST-SPRAY-0", "10.0.0.4")).statusCode).toBe(404);
  });

  it("treats another organization's key exactly like a wrong key", async () => {
    const wrong = await trace("TEST-NO-SUCH-KEY", "10.0.0.5", 4);
    const foreign = await trace(foreignKey, "10.0.0.6", 4);
    expect(foreign.map((r) => [r.status, r.body])).toEqual(wrong.map((r) => [r.status, r.body]));
  });
});

describe("the shared store (RATE_LIMIT_STORE=postgres)", () => {
  beforeAll(() => open("postgres"));
  afterAll(() => ctx.close());

  const counters = () => ctx.deps.db.selectFrom("rate_limit_counters").select(["key", "count"]).orderBy("key").execute();

  it("counts concurrent requests exactly: of 12 at once on one key, 3 pass", async () => {
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => validate("TEST-RACE", `10.1.0.${i}`)));
    expect(statuses.filter((r) => r.statusCode === 404)).toHaveLength(3);
    expect(statuses.filter((r) => r.statusCode === 429)).toHaveLength(9);
    expect(await counters()).toContainEqual({ key: `license-key-key:${orgId}:TEST-RACE`, count: 12 });
  });

  it("opens a new window when the last one ends (by the injected clock), and the purge deletes ended windows only", async () => {
    expect((await trace("TEST-WINDOW", "10.2.0.1", 4)).map((r) => r.status)).toEqual([404, 404, 404, 429]);
    ctx.clock.advance(59_000);
    const late = await validate("TEST-WINDOW", "10.2.0.1");
    expect(late.statusCode).toBe(429);
    expect(Number(late.headers["retry-after"])).toBe(1);
    ctx.clock.advance(1_000);
    expect((await validate("TEST-WINDOW", "10.2.0.1")).statusCode).toBe(404);

    const before = (await counters()).map((row) => row.key);
    expect(await purgeEndedWindows(ctx.deps.db, ctx.clock.now())).toBeGreaterThan(0);
    const after = (await counters()).map((row) => row.key);
    // Only the buckets touched after the clock moved are live: this key's and its address's.
    expect(after.sort()).toEqual([`license-key-address:10.2.0.1`, `license-key-key:${orgId}:TEST-WINDOW`]);
    expect(before.length).toBeGreaterThan(after.length);
  });
});

describe("client addresses behind a load balancer (TRUST_PROXY)", () => {
  const spray = async (forwardedFor: (i: number) => string) => {
    const statuses = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push(
        (
          await ctx.request({
            method: "POST",
            url: "/v1/customer-portal/license-keys/validate",
            payload: { key: `TEST-BALANCED-${forwardedFor(i)}-${i}`, organization_id: orgId },
            remoteAddress: "127.0.0.1",
            headers: { "x-forwarded-for": forwardedFor(i) },
          })
        ).statusCode,
      );
    return statuses;
  };

  it("limits the balancer's own address when no proxy is trusted, whatever it forwards", async () => {
    await open("memory");
    try {
      expect(await spray((i) => `203.0.113.${i}`)).toEqual([404, 404, 404, 404, 404, 429]);
    } finally {
      await ctx.close();
    }
  });

  it("limits each forwarded client apart when the balancer is trusted, and a lying client's own header buys it nothing", async () => {
    await open("memory", { TRUST_PROXY: "loopback" });
    try {
      expect(await spray((i) => `203.0.113.${i}`)).toEqual([404, 404, 404, 404, 404, 404]);
      // The client behind the balancer wrote its own X-Forwarded-For; only the hop the balancer added counts.
      expect(await spray((i) => `198.51.100.${i}, 203.0.113.99`)).toEqual([404, 404, 404, 404, 404, 429]);
    } finally {
      await ctx.close();
    }
  });
});
