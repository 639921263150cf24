import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending, recordEvent, type ReceivedWebhook } from "../../helpers/webhooks.ts";

let ctx: TestContext;
let orgId: string;
let writeToken: string;
let readToken: string;
let otherToken: string;

beforeAll(async () => {
  ctx = await createTestContext();
  orgId = (await createOrganization(ctx.deps)).id;
  const otherOrgId = (await createOrganization(ctx.deps)).id;
  writeToken = await createOrganizationToken(ctx.deps, orgId, ["webhooks:write"]);
  readToken = await createOrganizationToken(ctx.deps, orgId, ["webhooks:read"]);
  otherToken = await createOrganizationToken(ctx.deps, otherOrgId, ["webhooks:write"]);
});
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});
afterAll(() => ctx.close());

const HOUR = 3600_000;
const { engine, receiver, endpointFor, closeReceivers } = deliveryHarness(() => ctx);
const rotate = (id: string, token: string | null = writeToken) =>
  ctx.request({ method: "PATCH", url: `/v1/webhooks/endpoints/${id}/secret`, token });

async function verifies(request: ReceivedWebhook, secret: string, at: Date): Promise<boolean> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(at);
  try {
    await webhooks.validateEvent(request.body, request.headers, secret);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

describe("PATCH /v1/webhooks/endpoints/{id}/secret", () => {
  it("answers the endpoint with a new whsec_ secret, shown on later reads", async () => {
    const endpoint = await createWebhookEndpoint(ctx.deps, orgId);
    ctx.clock.advance(1000);
    const response = await rotate(endpoint.id);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expectReferenceResponse("webhooks:reset_webhook_endpoint_secret", 200, body);
    expect(body).toEqual({
      ...endpoint,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{43}$/),
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(body.secret).not.toBe(endpoint.secret);
    const read = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${endpoint.id}`, token: readToken });
    expect(read.json().secret).toBe(body.secret);
  });

  it("signs an in-flight retry with both secrets during the overlap, then with the new one only", async () => {
    const hook = await receiver((call) => (call === 0 ? { status: 500 } : { status: 200 }));
    const { organizationId, endpoint } = await endpointFor(hook.url);
    // Two events of one order: the second waits behind the first's retry.
    await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_1", n: 1 });
    await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_1", n: 2 });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(1);
    expect(await verifies(hook.received[0]!, endpoint.secret, ctx.clock.now())).toBe(true);

    // Rotated by the owner while the first event waits for its retry.
    const rotated = await ctx.request({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpoint.id}/secret`, token: ctx.ownerToken });
    const newSecret = rotated.json().secret as string;
    ctx.clock.advance(5000);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(3);
    for (const request of hook.received.slice(1)) {
      expect(request.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
      expect(await verifies(request, endpoint.secret, ctx.clock.now())).toBe(true);
      expect(await verifies(request, newSecret, ctx.clock.now())).toBe(true);
    }
    expect(await verifies(hook.received[1]!, `whsec_${"A".repeat(43)}`, ctx.clock.now())).toBe(false);

    ctx.clock.advance(24 * HOUR);
    await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_3" });
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    const late = hook.received[3]!;
    expect(late.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(await verifies(late, newSecret, ctx.clock.now())).toBe(true);
    expect(await verifies(late, endpoint.secret, ctx.clock.now())).toBe(false);
  });

  it("drops the oldest secret at once when rotated again within the overlap", async () => {
    const hook = await receiver();
    const { organizationId, endpoint } = await endpointFor(hook.url);
    const second = (
      await ctx.request({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpoint.id}/secret`, token: ctx.ownerToken })
    ).json().secret as string;
    const third = (
      await ctx.request({ method: "PATCH", url: `/v1/webhooks/endpoints/${endpoint.id}/secret`, token: ctx.ownerToken })
    ).json().secret as string;
    await recordEvent(ctx.deps, organizationId, "order.updated", { id: "ord_1" });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    const [request] = hook.received;
    expect(await verifies(request!, third, ctx.clock.now())).toBe(true);
    expect(await verifies(request!, second, ctx.clock.now())).toBe(true);
    expect(await verifies(request!, endpoint.secret, ctx.clock.now())).toBe(false);
  });

  describe("bad input", () => {
    let endpointId: string;
    let secretBefore: string;
    beforeAll(async () => {
      const endpoint = await createWebhookEndpoint(ctx.deps, orgId);
      endpointId = endpoint.id;
      secretBefore = endpoint.secret;
    });
    const patch = (token: string | null, id = endpointId) => ({
      method: "PATCH" as const,
      url: `/v1/webhooks/endpoints/${id}/secret`,
      token,
    });
    badInputTable(
      () => ctx.request,
      [
        { name: "a missing token", request: () => patch(null), status: 401 },
        { name: "an unknown token", request: () => patch("polar_oat_nope"), status: 401 },
        { name: "a read-only token", request: () => patch(readToken), status: 403 },
        { name: "another organization's endpoint", request: () => patch(otherToken), status: 404, error: "ResourceNotFound" },
        {
          name: "an unknown id",
          request: () => patch(writeToken, "3f2b1c4d-1111-4222-8333-123456789abc"),
          status: 404,
          error: "ResourceNotFound",
        },
        { name: "a non-UUID id", request: () => patch(writeToken, "not-a-uuid"), status: 422, loc: ["path", "id"] },
      ],
      async () => {
        const read = await ctx.request({ method: "GET", url: `/v1/webhooks/endpoints/${endpointId}`, token: readToken });
        expect(read.json().secret).toBe(secretBefore);
      },
    );
  });
});
