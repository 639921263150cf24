import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Deps } from "../../src/context.ts";
import { createWebhookDeliveryService } from "../../src/modules/webhooks/webhook-delivery.service.ts";
import { recordWebhookEvent, type WebhookEventType } from "../../src/jobs/webhook-outbox.ts";
import { createWebhookService } from "../../src/modules/webhooks/webhooks.service.ts";
import type { WebhookEndpointCreate } from "../../src/modules/webhooks/webhooks.schemas.ts";
import type { TestContext } from "./context.ts";
import { createOrganization } from "./factories.ts";

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

export interface ReceiverAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

/** A local HTTP server standing in for a subscriber; `answer` decides each response (0-based call number). */
export async function startReceiver(
  answer: (call: number, request: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(request.headers)) if (typeof value === "string") headers[key] = value;
      const entry = { headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: Date.now() };
      const reply = answer(received.length, entry);
      received.push(entry);
      response.writeHead(reply.status, reply.headers ?? {});
      response.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function createWebhookEndpoint(deps: Deps, organizationId: string, overrides: Partial<WebhookEndpointCreate> = {}) {
  return createWebhookService(deps).create(
    {
      url: "https://hooks.example.com/polar",
      format: "raw",
      events: ["order.created", "order.updated"],
      organization_id: organizationId,
      ...overrides,
    },
    { kind: "user", tokenId: "test", scopes: "all" },
  );
}

export async function recordEvent(
  deps: Deps,
  organizationId: string,
  type: WebhookEventType = "order.created",
  data: Record<string, unknown> = { id: "order-1" },
) {
  return recordWebhookEvent(deps.db, { organizationId, type, data, now: deps.now() });
}

/** Resolves once `condition` holds, polling; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs the fan-out job of every event not yet fanned out, in recording order, as the worker would. */
export async function fanOutPending(deps: Deps, delivery: { fanOutEvent(eventId: string): Promise<void> }): Promise<void> {
  const events = await deps.db.selectFrom("webhook_events").select("id").where("fanned_out_at", "is", null).orderBy("position").execute();
  for (const { id } of events) await delivery.fanOutEvent(id);
}

/**
 * What the delivery tests share: an engine with the jitter pinned to the middle of its range
 * (every delay exactly its nominal value), receivers closed after each test, and readers.
 */
export function deliveryHarness(context: () => TestContext) {
  const receivers: Receiver[] = [];
  return {
    engine: (deps: Deps = context().deps) => createWebhookDeliveryService(deps, { random: () => 0.5 }),
    receiver: async (answer?: (call: number) => ReceiverAnswer): Promise<Receiver> => {
      const started = await startReceiver(answer);
      receivers.push(started);
      return started;
    },
    /** A fresh organization with one endpoint for order events, pointing at `url`. */
    endpointFor: async (url: string, deps: Deps = context().deps) => {
      const organizationId = (await createOrganization(deps)).id;
      const endpoint = await createWebhookEndpoint(deps, organizationId, { url, events: ["order.created", "order.updated"] });
      return { organizationId, endpoint };
    },
    endpointEvents: (endpointId: string) =>
      context()
        .deps.db.selectFrom("webhook_endpoint_events")
        .selectAll()
        .where("endpoint_id", "=", endpointId)
        .orderBy("sequence")
        .execute(),
    closeReceivers: async () => {
      await Promise.all(receivers.splice(0).map((r) => r.close()));
    },
  };
}
