import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import type { PaymentProcessor } from "../../../src/adapters/payment-processors/payment-processor.ts";
import { sandboxProcessor } from "../../../src/adapters/payment-processors/sandbox.processor.ts";
import { unconfiguredProcessor } from "../../../src/adapters/payment-processors/unconfigured.processor.ts";
import { buildServices } from "../../../src/services.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { paidOrder } from "../refunds/refund-helpers.ts";
import { acceptWrites, disputeRow, recordDispute } from "./dispute-helpers.ts";

let ctx: TestContext;
let org: { id: string };
let checkoutToken: string;
let writeToken: string;
let readToken: string;
let foreignDisputeId: string;

beforeAll(async () => {
  ({
    ctx,
    org,
    tokens: [checkoutToken, writeToken, readToken],
  } = await openOrganizationContext(["checkouts:write"], ["disputes:write"], ["disputes:read"]));
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  const otherCheckout = await createOrganizationToken(ctx.deps, otherOrgId, ["checkouts:write"]);
  foreignDisputeId = (await recordDispute(ctx, await paidOrder(ctx, otherOrgId, otherCheckout)))!.id;
});
afterAll(() => ctx.close());

const accept = (id: string, token = writeToken) => ctx.request({ method: "POST", url: `/v1/disputes/${id}/accept`, token });
const licensedOrder = () =>
  paidOrder(ctx, org.id, checkoutToken, {
    benefits: [{ type: "license_keys", description: "License key", properties: { prefix: "DSP" } }],
  });

describe("POST /v1/disputes/{id}/accept", () => {
  it("concedes a dispute awaiting a response: lost, closed, and the order's grants revoked", async () => {
    const order = await licensedOrder();
    const dispute = (await recordDispute(ctx, order))!;
    ctx.clock.advance(1000);
    const response = await accept(dispute.id);
    expect(response.statusCode, response.body).toBe(200);
    expectReferenceResponse("disputes:accept", 200, response.json());
    expect(response.json()).toMatchObject({
      id: dispute.id,
      status: "lost",
      resolved: true,
      closed: true,
      modified_at: ctx.deps.now().toISOString(),
      order_id: order.id,
    });
    expect(await disputeRow(ctx, dispute.id)).toMatchObject({ status: "lost", processor_updated_at: ctx.deps.now() });
    const [grant] = await ctx.deps.db.selectFrom("benefit_grants").selectAll().where("order_id", "=", order.id).execute();
    expect(grant).toMatchObject({ granted_at: null, revoked_at: expect.any(Date) });
    const revoked = await ctx.deps.db
      .selectFrom("webhook_events")
      .select("payload")
      .where("organization_id", "=", org.id)
      .where("type", "=", "benefit_grant.revoked")
      .execute();
    expect(revoked.map((event) => event.payload.data)).toContainEqual(expect.objectContaining({ order_id: order.id }));
    // The processor's `closed` event of the same dispute, delivered after, changes nothing.
    const before = await acceptWrites(ctx);
    await recordDispute(ctx, order, { processorDisputeId: dispute.processor_dispute_id, status: "lost" });
    expect(await acceptWrites(ctx)).toEqual(before);
  });

  it("answers 409 DisputeNotOpenError for a dispute not awaiting a response, writing nothing", async () => {
    const order = await paidOrder(ctx, org.id, checkoutToken);
    for (const status of ["early_warning", "under_review", "won", "lost", "prevented"] as const) {
      const dispute = (await recordDispute(ctx, order, { status }))!;
      const before = await acceptWrites(ctx);
      const response = await accept(dispute.id);
      expect(response.statusCode, status).toBe(409);
      expectReferenceResponse("disputes:accept", 409, response.json());
      expect(response.json()).toEqual({ error: "DisputeNotOpenError", detail: `Dispute ${dispute.id} is not open for a response.` });
      expect(await acceptWrites(ctx)).toEqual(before);
    }
  });

  it("answers 404 for another organization's dispute and writes nothing", async () => {
    const before = await acceptWrites(ctx);
    const response = await accept(foreignDisputeId);
    expect(response.statusCode).toBe(404);
    expectReferenceResponse("disputes:accept", 404, response.json());
    expect(await acceptWrites(ctx)).toEqual(before);
    expect((await disputeRow(ctx, foreignDisputeId)).status).toBe("needs_response");
  });

  it("answers 502 DisputeCloseFailed when the processor refuses, and the dispute stays open", async () => {
    const dispute = (await recordDispute(ctx, await licensedOrder()))!;
    const app = await buildApp(ctx.deps, { logger: false, services: buildServices(ctx.deps, { payments: unconfiguredProcessor }) });
    try {
      const before = await acceptWrites(ctx);
      const response = await app.inject({
        method: "POST",
        url: `/v1/disputes/${dispute.id}/accept`,
        headers: { authorization: `Bearer ${writeToken}` },
      });
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({
        error: "DisputeCloseFailed",
        detail: "No payment processor is configured for this production deployment.",
      });
      expect(await acceptWrites(ctx)).toEqual(before);
    } finally {
      await app.close();
    }
  });

  it("lets one of two racing accepts close the dispute; the other answers 409 and the processor is asked once", async () => {
    const dispute = (await recordDispute(ctx, await licensedOrder()))!;
    let closes = 0;
    let closing = () => {};
    const asked = new Promise<void>((resolve) => (closing = resolve));
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const held: PaymentProcessor = {
      ...sandboxProcessor,
      closeDispute: async (request) => {
        closes += 1;
        closing();
        await answered;
        return sandboxProcessor.closeDispute(request);
      },
    };
    const app = await buildApp(ctx.deps, { logger: false, services: buildServices(ctx.deps, { payments: held }) });
    try {
      const send = () =>
        app.inject({ method: "POST", url: `/v1/disputes/${dispute.id}/accept`, headers: { authorization: `Bearer ${writeToken}` } });
      const first = send();
      await asked;
      // The second queues behind the dispute's row lock while the processor is closing it (without
      // the lock it would reach the processor too, and never wait).
      const second = send();
      await lockWaiter();
      answer();
      const responses = await Promise.all([first, second]);
      expect(responses.map((response) => response.statusCode)).toEqual([200, 409]);
      expect(responses[1].json().error).toBe("DisputeNotOpenError");
    } finally {
      answer();
      await app.close();
    }
    expect(closes).toBe(1);
    const revocations = await ctx.deps.db
      .selectFrom("benefit_grants")
      .select("revoked_at")
      .where("order_id", "=", dispute.order_id)
      .where("revoked_at", "is not", null)
      .execute();
    expect(revocations).toHaveLength(1);
  });
});

/** Resolves once a backend of this database waits on a lock. */
async function lockWaiter(): Promise<void> {
  const waiting = async () =>
    Number(
      (
        await sql<{
          n: string;
        }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(ctx.deps.db)
      ).rows[0]!.n,
    ) > 0;
  for (const deadline = Date.now() + 10_000; !(await waiting()); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() > deadline) throw new Error("the second accept did not queue behind the dispute's row lock");
  }
}

describe("POST /v1/disputes/{id}/accept bad input", () => {
  const post =
    (id: () => string, token: () => string | null = () => writeToken) =>
    () => ({ method: "POST" as const, url: `/v1/disputes/${id()}/accept`, token: token() });
  const unknown = () => "00000000-0000-4000-8000-000000000000";
  badInputTable(
    () => ctx.request,
    [
      { name: "no token", request: post(unknown, () => null), status: 401 },
      { name: "a read-only token (accept needs disputes:write)", request: post(unknown, () => readToken), status: 403 },
      { name: "a non-UUID id", request: post(() => "dp_1"), status: 422, loc: ["path", "id"] },
      { name: "an unknown id", request: post(unknown), status: 404, error: "ResourceNotFound" },
      { name: "another organization's dispute", request: post(() => foreignDisputeId), status: 404, error: "ResourceNotFound" },
    ],
  );
});
