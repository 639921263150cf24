import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SLICE_SIZE } from "../../../src/values/slices.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { countEvents, createIngestFixture, postEvents, uniqueId } from "./ingest-fixture.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let writeToken: string;
let customerId: string;
let otherOrgCustomerId: string;

beforeAll(async () => {
  ({ ctx, orgId, otherOrgId, writeToken, customerId, otherOrgCustomerId } = await createIngestFixture());
});
afterAll(() => ctx.close());

const ingest = (events: unknown, token: string | null = writeToken) => postEvents(ctx, events, token);
const eventCount = () => countEvents(ctx.deps.db);

const storedByExternalId = (externalId: string) =>
  ctx.deps.db.selectFrom("events").selectAll().where("external_id", "=", externalId).execute();

describe("POST /v1/events/ingest", () => {
  it("stores events of both shapes and answers the counts", async () => {
    const past = new Date(ctx.clock.now().getTime() - 60_000).toISOString();
    const a = uniqueId("a");
    const b = uniqueId("b");
    const response = await ingest([
      {
        name: "api.call",
        customer_id: customerId,
        external_id: a,
        timestamp: past,
        metadata: { route: "/x", units: 3, ratio: 0.5, ok: true, _cost: { amount: 12.5, currency: "usd" } },
      },
      { name: "", external_customer_id: "user_42", external_member_id: "m_1", external_id: b, parent_id: a },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ inserted: 2, duplicates: 0 });
    expectReferenceResponse("events:ingest", 200, response.json());

    const [first] = await storedByExternalId(a);
    expect(first).toMatchObject({
      organization_id: orgId,
      customer_id: customerId,
      external_customer_id: null,
      name: "api.call",
      source: "user",
      parent_id: null,
      metadata: { route: "/x", units: 3, ratio: 0.5, ok: true, _cost: { amount: "12.5", currency: "usd" } },
    });
    expect(first!.timestamp.toISOString()).toBe(past);
    // An event without a parent is its own root.
    expect(first!.root_id).toBe(first!.id);

    const [second] = await storedByExternalId(b);
    expect(second).toMatchObject({
      customer_id: null,
      external_customer_id: "user_42",
      external_member_id: "m_1",
      name: "",
      parent_id: a,
      root_id: null,
    });
    // Without a timestamp, the event happened when it was received.
    expect(second!.timestamp.toISOString()).toBe(ctx.clock.now().toISOString());
  });

  it("stores text with quotes, backslashes, braces, commas, newlines, COPY's null marker and the word NULL exactly", async () => {
    const tricky = 'q"uote \\back,slash {brace} new\nline\ttab\rreturn \\N \\\\. é 🙂';
    const externalId = `NULL-${uniqueId("x")}\t\\N\n`;
    const response = await ingest([
      {
        name: tricky,
        external_customer_id: "NULL",
        external_member_id: tricky,
        external_id: externalId,
        parent_id: "{}",
        metadata: { text: tricky, 'ke"y': "NULL" },
      },
    ]);
    expect(response.json()).toEqual({ inserted: 1, duplicates: 0 });
    expect((await storedByExternalId(externalId))[0]).toMatchObject({
      name: tricky,
      external_customer_id: "NULL",
      external_member_id: tricky,
      parent_id: "{}",
      metadata: { text: tricky, 'ke"y': "NULL" },
    });
    // Claimed as sent: the same id again is a duplicate, a near one is not.
    const again = await ingest([
      { name: "again", external_customer_id: "NULL", external_id: externalId },
      { name: "near", external_customer_id: "NULL", external_id: externalId.trimEnd() },
    ]);
    expect(again.json()).toEqual({ inserted: 1, duplicates: 1 });
  });

  it("counts an external id already stored, or repeated in the batch, as a duplicate (the first wins)", async () => {
    const known = uniqueId("known");
    expect((await ingest([{ name: "first", customer_id: customerId, external_id: known }])).json()).toEqual({ inserted: 1, duplicates: 0 });
    const repeated = uniqueId("repeated");
    const response = await ingest([
      { name: "again", customer_id: customerId, external_id: known },
      { name: "one", customer_id: customerId, external_id: repeated },
      { name: "two", customer_id: customerId, external_id: repeated },
    ]);
    expect(response.json()).toEqual({ inserted: 1, duplicates: 2 });
    expect((await storedByExternalId(known)).map((e) => e.name)).toEqual(["first"]);
    expect((await storedByExternalId(repeated)).map((e) => e.name)).toEqual(["one"]);
  });

  it("answers zero counts for an empty batch", async () => {
    const before = await eventCount();
    expect((await ingest([])).json()).toEqual({ inserted: 0, duplicates: 0 });
    expect(await eventCount()).toBe(before);
  });

  it("never dedupes events without an external id", async () => {
    const before = await eventCount();
    const same = { name: "same", customer_id: customerId, external_id: null };
    expect((await ingest([same, same, { name: "same", customer_id: customerId }])).json()).toEqual({ inserted: 3, duplicates: 0 });
    expect(await eventCount()).toBe(before + 3);
  });

  it("scopes external ids by organization: the same id in two organizations is two events", async () => {
    const shared = uniqueId("shared");
    const otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["events:write"]);
    expect((await ingest([{ name: "x", external_customer_id: "u", external_id: shared }])).json()).toEqual({ inserted: 1, duplicates: 0 });
    expect((await ingest([{ name: "x", external_customer_id: "u", external_id: shared }], otherToken)).json()).toEqual({
      inserted: 1,
      duplicates: 0,
    });
    expect((await storedByExternalId(shared)).map((e) => e.organization_id).sort()).toEqual([orgId, otherOrgId].sort());
  });

  it("inserts each event once when the same batch is sent 10 times in parallel", async () => {
    const batch = Array.from({ length: 200 }, (_, i) => ({ name: "parallel", customer_id: customerId, external_id: `parallel-${i}` }));
    const responses = await Promise.all(Array.from({ length: 10 }, () => ingest(batch)));
    const bodies = responses.map((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json<{ inserted: number; duplicates: number }>();
    });
    expect(bodies.reduce((sum, b) => sum + b.inserted, 0)).toBe(200);
    expect(bodies.reduce((sum, b) => sum + b.duplicates, 0)).toBe(1800);
    const stored = await ctx.deps.db.selectFrom("events").select("external_id").where("external_id", "like", "parallel-%").execute();
    expect(stored).toHaveLength(200);
  });

  it("does not deadlock when parallel batches share external ids in opposite orders", async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `crossed-${i}`);
    const forward = ids.map((external_id) => ({ name: "crossed", customer_id: customerId, external_id }));
    const backward = [...forward].reverse();
    const responses = await Promise.all([ingest(forward), ingest(backward), ingest(forward), ingest(backward)]);
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(responses.reduce((sum, r) => sum + r.json<{ inserted: number }>().inserted, 0)).toBe(300);
  });

  it("validates and stores a batch larger than one validation slice, each row with its own fields", async () => {
    const count = SLICE_SIZE * 2 + 321;
    const events = Array.from({ length: count }, (_, i) => ({
      name: "bulk",
      external_customer_id: `u${i % 7}`,
      external_id: `bulk-${i}`,
      metadata: { position: i },
    }));
    expect((await ingest(events)).json()).toEqual({ inserted: count, duplicates: 0 });
    // Columns travel as separate arrays joined from slices: every stored row keeps its own values.
    const stored = await ctx.deps.db
      .selectFrom("events")
      .select(["external_id", "external_customer_id", "metadata"])
      .where("organization_id", "=", orgId)
      .where("name", "=", "bulk")
      .execute();
    expect(stored).toHaveLength(count);
    const misplaced = stored.filter((row) => {
      const position = Number(row.external_id!.slice("bulk-".length));
      return row.external_customer_id !== `u${position % 7}` || (row.metadata as { position?: number }).position !== position;
    });
    expect(misplaced).toEqual([]);
    const bad = events.map((e, i) =>
      i === SLICE_SIZE + 5 ? { ...e, external_id: `fresh-${i}`, timestamp: "2025-01-01T00:00:00" } : { ...e, external_id: `fresh-${i}` },
    );
    const before = await eventCount();
    const response = await ingest(bad);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toEqual([
      expect.objectContaining({ loc: ["body", "events", SLICE_SIZE + 5, "EventCreateCustomer", "customer_id"], type: "missing" }),
      expect.objectContaining({ loc: ["body", "events", SLICE_SIZE + 5, "EventCreateCustomer", "timestamp"], type: "timezone_aware" }),
      expect.objectContaining({
        loc: ["body", "events", SLICE_SIZE + 5, "EventCreateExternalCustomer", "timestamp"],
        type: "timezone_aware",
      }),
    ]);
    expect(await eventCount()).toBe(before);
  });

  it("accepts an external customer id nobody has yet", async () => {
    const id = uniqueId("waiting");
    expect((await ingest([{ name: "early", external_customer_id: "not-yet-a-customer", external_id: id }])).statusCode).toBe(200);
    expect(await storedByExternalId(id)).toHaveLength(1);
  });

  it("takes an event carrying both customer keys as the customer_id shape, as the reference's union does", async () => {
    const id = uniqueId("both");
    expect((await ingest([{ name: "both", customer_id: customerId, external_customer_id: "ignored", external_id: id }])).statusCode).toBe(
      200,
    );
    expect((await storedByExternalId(id))[0]).toMatchObject({ customer_id: customerId, external_customer_id: null });
  });

  describe("with the instance owner's personal token", () => {
    it("requires organization_id and stores the event there", async () => {
      const id = uniqueId("owner");
      const response = await ingest(
        [{ name: "owner", customer_id: otherOrgCustomerId, organization_id: otherOrgId, external_id: id }],
        ctx.ownerToken,
      );
      expect(response.json()).toEqual({ inserted: 1, duplicates: 0 });
      expect((await storedByExternalId(id))[0]!.organization_id).toBe(otherOrgId);
    });

    it("answers 422 `missing` without organization_id", async () => {
      const response = await ingest([{ name: "x", customer_id: customerId }], ctx.ownerToken);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        error: "RequestValidationError",
        detail: [{ loc: ["body", "events", 0, "organization_id"], msg: "organization_id is required.", type: "missing", input: null }],
      });
      expectReferenceResponse("events:ingest", 422, response.json());
    });

    it("answers 422 for an unknown organization", async () => {
      const unknown = "3f2b1c4d-1111-4222-8333-123456789abc";
      const response = await ingest([{ name: "x", external_customer_id: "u", organization_id: unknown }], ctx.ownerToken);
      expect(response.statusCode).toBe(422);
      expect(response.json().detail).toEqual([
        { loc: ["body", "events", 0, "organization_id"], msg: "Organization not found.", type: "organization_id", input: unknown },
      ]);
    });
  });
});
