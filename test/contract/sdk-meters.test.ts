import { createPolar } from "@polar-sh/sdk/2026-04";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, listen, type TestContext } from "../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../helpers/factories.ts";

/** The official client, unchanged, against meters and the events list's meter filters. */
let ctx: TestContext;
let baseUrl: string;

beforeAll(async () => {
  ctx = await createTestContext();
  baseUrl = await listen(ctx);
});
afterAll(() => ctx.close());

const tokensOf = (event: { metadata: object }): unknown => ("tokens" in event.metadata ? event.metadata.tokens : undefined);

describe("official SDK @polar-sh/sdk/2026-04: meters", () => {
  it("creates, lists, gets, archives, reads quantities, and lists a meter's events", async () => {
    const org = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, org.id, ["meters:write", "events:write", "events:read"]);
    const polar = createPolar({ accessToken: token, baseUrl });
    const filter = {
      conjunction: "and" as const,
      clauses: [
        { property: "name", operator: "eq" as const, value: "llm" },
        { conjunction: "or" as const, clauses: [{ property: "model", operator: "like" as const, value: "gpt" }] },
      ],
    };
    const meter = await polar.meters.create({ name: "LLM tokens", filter, aggregation: { func: "sum", property: "tokens" } });
    expect(meter).toMatchObject({ name: "LLM tokens", unit: "scalar", aggregation: { func: "sum", property: "tokens" } });
    await polar.events.ingest({
      events: [
        { name: "llm", external_customer_id: "u1", timestamp: "2026-03-01T10:00:00Z", metadata: { tokens: 12, model: "gpt-5" } },
        { name: "llm", external_customer_id: "u2", timestamp: "2026-03-02T10:00:00Z", metadata: { tokens: 30, model: "gpt-4" } },
        { name: "llm", external_customer_id: "u2", timestamp: "2026-03-02T11:00:00Z", metadata: { tokens: 99, model: "claude" } },
      ],
    });

    const quantities = await polar.meters.quantities(meter.id, {
      start_timestamp: "2026-03-01T00:00:00Z",
      end_timestamp: "2026-03-02T00:00:00Z",
      interval: "day",
      timezone: "Europe/Paris",
      external_customer_id: ["u1", "u2"],
    });
    expect(quantities.quantities.map((q) => q.quantity)).toEqual([12, 30]);
    expect(quantities.total).toBe(42);
    const perCustomer = await polar.meters.quantities(meter.id, {
      start_timestamp: "2026-03-01T00:00:00Z",
      end_timestamp: "2026-03-02T00:00:00Z",
      interval: "day",
      customer_aggregation_function: "count",
    });
    expect(perCustomer.total).toBe(2);

    expect((await polar.meters.list({ query: "LLM" })).items.map((m) => m.id)).toEqual([meter.id]);
    expect((await polar.meters.get(meter.id)).filter).toEqual(filter);
    const archived = await polar.meters.update(meter.id, { is_archived: true });
    expect(archived.archived_at).not.toBeNull();

    const counted = await polar.events.list({ meter_id: meter.id });
    expect(counted.items.map(tokensOf).sort()).toEqual([12, 30]);
    const filtered = await polar.events.list({
      filter: JSON.stringify({ conjunction: "and", clauses: [{ property: "tokens", operator: "gt", value: 50 }] }),
    });
    expect(filtered.items.map(tokensOf)).toEqual([99]);
  });
});
