import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerUsage } from "../../../src/modules/meters/meter-usage.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, openOrganizationContext } from "../../helpers/factories.ts";
import { ingest } from "./meters-helpers.ts";

let ctx: TestContext;
let orgId: string;
let token: string;

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token],
  } = await openOrganizationContext(["meters:write", "events:write"]));
});
afterAll(() => ctx.close());

const HOUR = 3_600_000;
const BASE = Date.UTC(2026, 2, 1, 0, 0, 0);

/** A deterministic sequence of numbers in [0, 1). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe("customerUsage: a customer's quantity over an exact range, for billing", () => {
  it("equals the aggregation over the raw events for ranges cut anywhere inside hours, by customer id and external id", async () => {
    const customer = await createCustomer(ctx.deps, orgId, { external_id: "usage-ext" });
    const next = random(7);
    const timestamps = Array.from({ length: 120 }, () => BASE + Math.floor(next() * 48 * HOUR));
    const events = timestamps.map((timestamp, i) => ({
      name: "usage",
      ...(i % 3 === 0 ? { external_customer_id: "usage-ext" } : { customer_id: customer.id }),
      timestamp: new Date(timestamp).toISOString(),
      metadata: { amount: Number((next() * 100).toFixed(3)) },
    }));
    // Another customer's events never count.
    events.push({
      name: "usage",
      external_customer_id: "someone",
      timestamp: new Date(BASE + HOUR).toISOString(),
      metadata: { amount: 5 },
    });
    const created = await ctx.request({
      method: "POST",
      url: "/v1/meters/",
      token,
      payload: {
        name: "Usage",
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "usage" }] },
        aggregation: { func: "sum", property: "amount" },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const meterId = created.json<{ id: string }>().id;
    await ingest(ctx, token, events);

    for (let run = 0; run < 12; run += 1) {
      const a = BASE + Math.floor(next() * 48 * HOUR);
      const b = BASE + Math.floor(next() * 48 * HOUR);
      const from = new Date(Math.min(a, b));
      const to = new Date(run === 0 ? from.getTime() + HOUR : Math.max(a, b));
      const quantity = await customerUsage(ctx.deps.db, { meterId, customerId: customer.id, from, to });
      const { rows } = await sql<{ total: string }>`SELECT coalesce(sum((metadata->>'amount')::numeric), 0)::text AS total FROM events
        WHERE organization_id = ${orgId}::uuid AND name = 'usage' AND (customer_id = ${customer.id}::uuid OR external_customer_id = 'usage-ext')
          AND "timestamp" >= ${from} AND "timestamp" < ${to}`.execute(ctx.deps.db);
      expect(Number(quantity), `${from.toISOString()} – ${to.toISOString()}`).toBe(Number(rows[0]!.total));
      expect(quantity).toMatch(/^\d+(\.\d+)?$/);
    }
    expect(
      await customerUsage(ctx.deps.db, { meterId: crypto.randomUUID(), customerId: customer.id, from: new Date(BASE), to: new Date() }),
    ).toBeNull();
  });
});
