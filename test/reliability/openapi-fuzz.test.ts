import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody } from "../helpers/bad-inputs.ts";
import { createTestContext } from "../helpers/context.ts";
import { createDiscount } from "../helpers/factories.ts";
import { changedTables, databaseFingerprinter } from "../helpers/database-fingerprint.ts";
import {
  deletionsLast,
  documentedOperations,
  EVERY_ROUTE_ENV,
  operationSeed,
  fastifyRouteKeys,
  invalidRequests,
  routeKey,
  validRequests,
  type BuiltRequest,
  type Operation,
} from "../helpers/openapi-requests.ts";
import type { IdSource } from "../helpers/schema-arbitraries.ts";
import { seedTenant, tenantIdSource, type Tenant } from "../helpers/tenant.ts";

/**
 * Property-based fuzzing of every operation of our own `/openapi.json`: requests generated from
 * each operation's parameter and body schemas, half of them valid (real ids some of the time), half
 * broken in one place. Whatever the request: no 5xx, every 4xx in the documented error shape, and a
 * refused request writes nothing. Seeded and bounded; `FUZZ_RUNS` and `FUZZ_SEED` widen a local run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);

const ctx = await createTestContext({ env: EVERY_ROUTE_ENV });
afterAll(() => ctx.close());
const operations = deletionsLast(await documentedOperations(ctx));

let tenant: Tenant;
let ids: IdSource;
let fingerprint: () => Promise<Record<string, string>>;
beforeAll(async () => {
  tenant = await seedTenant(ctx);
  ids = await tenantIdSource(ctx, tenant);
  fingerprint = await databaseFingerprinter(ctx);
});

/** The credential a legitimate caller of the operation holds. */
function tokenFor(operation: Operation): string | null {
  const kinds = operation.auth?.kinds ?? [];
  if (kinds.length === 0) return null;
  if (kinds.includes("organization")) return tenant.token;
  if (kinds.includes("member")) return tenant.customer.session;
  return ctx.ownerToken;
}

it("covers every /v1 route of Fastify's route table", () => {
  const documented = new Set(operations.map((operation) => routeKey(operation.method, operation.path)));
  const served = [...fastifyRouteKeys(ctx.app)].filter((key) => key.split(" ")[1]!.startsWith("/v1/"));
  expect(served.length).toBeGreaterThan(100);
  expect(served.filter((key) => !documented.has(key))).toEqual([]);
});

it("fingerprints the database so that an insert, an update and a delete each show", async () => {
  const db = ctx.database.db;
  const expectWrite = async (write: () => Promise<unknown>) => {
    const before = await fingerprint();
    await write();
    expect(changedTables(before, await fingerprint())).toEqual(["public.discounts"]);
  };
  let id = "";
  await expectWrite(async () => ({ id } = await createDiscount(ctx.deps, tenant.organizationId)));
  await expectWrite(() => db.updateTable("discounts").set({ name: "Renamed" }).where("id", "=", id).execute());
  await expectWrite(() => db.deleteFrom("discounts").where("id", "=", id).execute());
});

describe.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))("%s", (_name, operation) => {
  it("answers generated requests without a 5xx, refusals in the documented shape and writing nothing", async () => {
    const token = tokenFor(operation);
    const requests = fc.oneof(validRequests(operation, ids), invalidRequests(operation, ids));
    let before = await fingerprint();
    await fc.assert(
      fc.asyncProperty(requests, async (request: BuiltRequest) => {
        const response = await ctx.request({ ...request, token });
        const after = await fingerprint();
        const context = `${request.method} ${request.url.slice(0, 300)} ${request.payload?.slice(0, 300) ?? ""} → ${response.statusCode} ${response.body.slice(0, 500)}`;
        expect(response.statusCode, context).toBeLessThan(500);
        if (response.statusCode >= 400) {
          expectErrorBody(response.statusCode, response.json());
          expect(changedTables(before, after), context).toEqual([]);
        }
        before = after;
      }),
      { seed: operationSeed(operation, SEED), numRuns: RUNS * 2, endOnFailure: true },
    );
  });
});
