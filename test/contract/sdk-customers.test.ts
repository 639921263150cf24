import { createPolar } from "@polar-sh/sdk/2026-04";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, listen, type TestContext } from "../helpers/context.ts";
import { createCustomer, createOrganization, createOrganizationToken } from "../helpers/factories.ts";

// The customer operations an auth plugin calls when its user changes or leaves, through the official
// client, unchanged, against a listening server: it must decode every answer (204s included).

let ctx: TestContext;
let baseUrl: string;

beforeAll(async () => {
  ctx = await createTestContext();
  baseUrl = await listen(ctx);
});
afterAll(() => ctx.close());

describe("official SDK: customer updates by external ID, deletions and export", () => {
  it("updates by external ID, exports, deletes by external ID and by ID", async () => {
    const org = await createOrganization(ctx.deps);
    const polar = createPolar({
      accessToken: await createOrganizationToken(ctx.deps, org.id, ["customers:read", "customers:write"]),
      baseUrl,
    });
    const first = await createCustomer(ctx.deps, org.id, { external_id: "user_1", email: "one@example.com" });
    const second = await createCustomer(ctx.deps, org.id, { external_id: "user_2", email: "two@example.com" });

    const renamed = await polar.customers.updateExternal("user_1", { name: "Renamed", email: "renamed@example.com" });
    expect(renamed).toMatchObject({ id: first.id, name: "Renamed", email: "renamed@example.com", external_id: "user_1" });

    const csv = await polar.customers.export({ organization_id: org.id });
    expect(csv.split("\n")[0]).toMatch(/^ID,External ID,Created At,Email,/);
    expect(csv).toContain("renamed@example.com");

    await expect(polar.customers.deleteExternal("user_1", { anonymize: false })).resolves.toBeUndefined();
    await expect(polar.customers.delete(second.id)).resolves.toBeUndefined();
    await expect(polar.customers.get(second.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(polar.customers.deleteExternal("user_1")).rejects.toMatchObject({ statusCode: 404 });
  });
});
