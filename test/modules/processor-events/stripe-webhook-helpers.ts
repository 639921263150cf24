import { Logger, runOnce } from "graphile-worker";
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import type { LightMyRequestResponse } from "fastify";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { taskList } from "../../../src/tasks.ts";
import type { TestContext } from "../../helpers/context.ts";
import { queuedJobs } from "../../helpers/jobs.ts";

export const WEBHOOK_URL = "/v1/integrations/stripe/webhook";
export const WEBHOOK_SECRET = "whsec_inbox_test_secret";

/** The configuration of an app whose processor is Stripe (test-mode keys; nothing reaches Stripe unless a test calls it). */
export const STRIPE_ENV = {
  PAYMENT_PROCESSOR: "stripe",
  STRIPE_SECRET_KEY: "sk_test_inbox",
  STRIPE_PUBLISHABLE_KEY: "pk_test_inbox",
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  // Unreachable on purpose: a test that reached Stripe would fail rather than call the real one.
  STRIPE_API_URL: "http://127.0.0.1:9",
};

/** A Stripe event around `object`, as Stripe sends it (a fresh `evt_` id unless given). */
export const stripeEvent = (type: string, object: Record<string, unknown>, id = `evt_${randomUUID().replaceAll("-", "")}`) => ({
  id,
  object: "event",
  api_version: "2026-01-28.clover",
  created: Math.floor(Date.now() / 1000),
  data: { object },
  livemode: false,
  pending_webhooks: 1,
  request: { id: null, idempotency_key: null },
  type,
});

/** A signed delivery of `payload` (the exact text), signed at the app's clock unless a timestamp (seconds) is given. */
export function deliverRaw(
  ctx: TestContext,
  payload: string,
  options: { timestamp?: number; secret?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp ?? Math.floor(ctx.clock.now().getTime() / 1000),
  });
  return ctx.request({
    method: "POST",
    url: WEBHOOK_URL,
    payload,
    headers: { "content-type": "application/json", "stripe-signature": signature, ...options.headers },
  });
}

export const deliver = (ctx: TestContext, event: object) => deliverRaw(ctx, JSON.stringify(event));

const silent = new Logger(() => () => {});

/** Runs the due `processor_events.handle` jobs once through graphile-worker (a failing job is rescheduled by it, as in production). */
export async function runEventJobs(ctx: TestContext): Promise<void> {
  const task = taskList(ctx.deps, ctx.services)[TaskName.processorEventHandle];
  if (!task) throw new Error("the app has no processor event task");
  await runOnce({ pgPool: ctx.database.pool, logger: silent, taskList: { [TaskName.processorEventHandle]: task } });
}

/** The queued `processor_events.handle` jobs, with their attempts and last error. */
export const eventJobs = (ctx: TestContext) => queuedJobs<{ eventId: string }>(ctx.deps.db, { task: TaskName.processorEventHandle });

/** The stored events, oldest first. */
export const storedEvents = (ctx: TestContext) => ctx.deps.db.selectFrom("processor_events").selectAll().orderBy("received_at").execute();
