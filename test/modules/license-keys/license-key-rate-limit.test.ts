import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrganization } from "../../helpers/factories.ts";

let ctx: TestContext;
let orgId: string;
let foreignKey: string;

beforeAll(async () => {
  ctx = await createTestContext({
    env: { LICENSE_KEY_RATE_LIMIT_PER_ADDRESS: "5", LICENSE_KEY_RATE_LIMIT_PER_KEY: "3", LICENSE_KEY_RATE_LIMIT_WINDOW_MS: "60000" },
  });
  orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  foreignKey = (await createLicenseKey(ctx.deps, otherOrgId, (await createCustomer(ctx.deps, otherOrgId)).id)).key;
});
afterAll(() => ctx.close());

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

describe("public license-key routes rate limits", () => {
  it("limits one key across addresses, answering 429 with Retry-After", async () => {
    const results = await trace("TEST-UNKNOWN-ONE", "10.0.0.1", 4);
    expect(results.map((r) => r.status)).toEqual([404, 404, 404, 429]);
    expect(JSON.parse(results[3]!.body)).toEqual({ error: "TooManyRequests", detail: "Rate limit exceeded, retry later." });
    expect(Number(results[3]!.retryAfter)).toBeGreaterThan(0);
    expect(Number(results[3]!.retryAfter)).toBeLessThanOrEqual(60);
    expect((await validate("TEST-UNKNOWN-ONE", "10.0.0.2")).statusCode).toBe(429);
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
