import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/context.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("GET /openapi.json", () => {
  it("documents the catalog, customer and session operations with their security", async () => {
    const response = await ctx.request({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const document = response.json<{
      paths: Record<string, Record<string, { operationId: string; security: Record<string, string[]>[] }>>;
    }>();
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
    for (const id of [
      "products:create",
      "products:list",
      "products:get",
      "products:update",
      "benefits:create",
      "benefits:get",
      "discounts:create",
      "discounts:list",
      "discounts:get",
      "customers:create",
      "customers:list",
      "customers:get",
      "customers:update",
      "customers:get_external",
      "customer-sessions:create",
    ]) {
      expect(byId.has(id), id).toBe(true);
    }
    expect(byId.get("customer-sessions:create")?.security).toEqual([
      { pat: ["customer_sessions:write"] },
      { oat: ["customer_sessions:write"] },
    ]);
  });
});
