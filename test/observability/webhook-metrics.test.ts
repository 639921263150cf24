import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMetricsServer } from "../../src/observability/metrics-endpoint.ts";
import { createPrometheusMetrics } from "../../src/observability/prometheus-metrics.ts";
import { LATE_ENDPOINTS } from "../../src/observability/webhook-metrics.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { createOrganization } from "../helpers/factories.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending, recordEvent } from "../helpers/webhooks.ts";

/** The webhook figures of `/metrics`: attempts by result, the backlog, and the few endpoints most behind. */

let ctx: TestContext;
let server: Server;
const { engine, receiver, closeReceivers } = deliveryHarness(() => ctx);

beforeAll(async () => {
  ctx = await createTestContext();
  server = await startMetricsServer(createPrometheusMetrics(ctx.deps.db), "127.0.0.1", 0);
});
afterEach(() => closeReceivers());
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await ctx.close();
});

const scrape = async () => {
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
};
const valueOf = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
const seriesOf = (text: string, name: string) => text.split("\n").filter((line) => line.startsWith(`${name}{`));

describe("webhook metrics", () => {
  it("counts attempts by result and shows the backlog by endpoint state", async () => {
    const hook = await receiver(() => ({ status: 200 }));
    const refusing = await receiver(() => ({ status: 500 }));
    const organizationId = (await createOrganization(ctx.deps)).id;
    const ok = await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: ["order.created"] });
    const failing = await createWebhookEndpoint(ctx.deps, organizationId, { url: refusing.url, events: ["subscription.created"] });
    const before = await scrape();
    const count = (text: string, series: string) => valueOf(text, series) ?? 0;

    for (let i = 0; i < 3; i += 1) await recordEvent(ctx.deps, organizationId, "order.created", { id: `ord_${i}` });
    await recordEvent(ctx.deps, organizationId, "subscription.created", { id: "sub_1" });
    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(ok.id);
    await delivery.deliverEndpoint(failing.id);

    const after = await scrape();
    const delta = (series: string) => count(after, series) - count(before, series);
    expect(delta('webhook_delivery_attempts_total{result="succeeded"}')).toBe(3);
    expect(delta('webhook_delivery_attempts_total{result="failed"}')).toBe(1);
    expect(delta('webhook_events_settled_total{outcome="failed"}')).toBe(0);
    expect(valueOf(after, 'webhook_events_pending{endpoint_state="enabled"}')).toBe(1);
    expect(valueOf(after, 'webhook_events_oldest_pending_age_seconds{endpoint_state="enabled"}')).toBeGreaterThanOrEqual(0);
    expect(valueOf(after, 'webhook_events_pending{endpoint_state="disabled"}')).toBe(0);
    expect(valueOf(after, `webhook_endpoint_events_pending{endpoint_id="${failing.id}"}`)).toBe(1);
    expect(valueOf(after, `webhook_endpoint_events_pending{endpoint_id="${ok.id}"}`)).toBeUndefined();

    // Disabled, the endpoint's waiting event counts apart and leaves the per-endpoint series.
    await ctx.deps.db.updateTable("webhook_endpoints").set({ enabled: false }).where("id", "=", failing.id).execute();
    const disabled = await scrape();
    expect(valueOf(disabled, 'webhook_events_pending{endpoint_state="enabled"}')).toBe(0);
    expect(valueOf(disabled, 'webhook_events_pending{endpoint_state="disabled"}')).toBe(1);
    expect(valueOf(disabled, `webhook_endpoint_events_pending{endpoint_id="${failing.id}"}`)).toBeUndefined();
    await ctx.deps.db.deleteFrom("webhook_endpoint_events").where("endpoint_id", "=", failing.id).execute();
  });

  it(`shows per-endpoint series for the ${LATE_ENDPOINTS} endpoints most behind only, however many have a backlog`, async () => {
    const organizationId = (await createOrganization(ctx.deps)).id;
    const endpoints = [];
    for (let i = 0; i < LATE_ENDPOINTS + 5; i += 1) {
      endpoints.push(
        await createWebhookEndpoint(ctx.deps, organizationId, { url: `https://hooks.example.com/${i}`, events: ["order.created"] }),
      );
    }
    await recordEvent(ctx.deps, organizationId, "order.created", { id: "ord_1" });
    await fanOutPending(ctx.deps, engine());
    // The last endpoint's event waited longest.
    const oldest = endpoints.at(-1)!;
    await sql`UPDATE webhook_endpoint_events SET created_at = now() - interval '1 hour' WHERE endpoint_id = ${oldest.id}`.execute(
      ctx.deps.db,
    );

    const text = await scrape();
    expect(seriesOf(text, "webhook_endpoint_events_pending")).toHaveLength(LATE_ENDPOINTS);
    expect(seriesOf(text, "webhook_endpoint_oldest_pending_age_seconds")).toHaveLength(LATE_ENDPOINTS);
    expect(valueOf(text, `webhook_endpoint_oldest_pending_age_seconds{endpoint_id="${oldest.id}"}`)).toBeGreaterThanOrEqual(3600);
    expect(valueOf(text, 'webhook_events_pending{endpoint_state="enabled"}')).toBe(LATE_ENDPOINTS + 5);
    expect(valueOf(text, 'webhook_events_oldest_pending_age_seconds{endpoint_state="enabled"}')).toBeGreaterThanOrEqual(3600);
  });
});
