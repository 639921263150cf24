import { Logger, runOnce } from "graphile-worker";
import type { ParsedMail } from "mailparser";
import { sql } from "kysely";
import { expect } from "vitest";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { sendEmailTask } from "../../../src/modules/emails/emails.tasks.ts";
import type { TestContext } from "../../helpers/context.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import { createProduct } from "../../helpers/factories.ts";
import { openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";

const silentLogger = new Logger(() => () => undefined);

/**
 * Runs every due `emails.send` job through graphile-worker, as the server's worker would. runOnce
 * may resolve before its last job's completion (or failure) is written, which it does not await:
 * wait until no send job is still locked, so the queue reads as the worker left it.
 */
export async function runEmailJobs(ctx: TestContext): Promise<void> {
  await runOnce({
    pgPool: ctx.database.pool,
    taskList: { [TaskName.emailSend]: sendEmailTask(ctx.services.emailDelivery) },
    noHandleSignals: true,
    logger: silentLogger,
  });
  await expect
    .poll(async () => (await queuedJobs(ctx.deps.db, { task: TaskName.emailSend })).filter((job) => job.locked_at !== null), {
      timeout: 5_000,
    })
    .toEqual([]);
}

/** Whether a message carries `List-Unsubscribe` (mailparser folds the `List-*` headers into one `list` entry; the raw lines keep each). */
export const hasListUnsubscribe = (mail: ParsedMail): boolean => mail.headerLines.some((line) => line.key === "list-unsubscribe");

/** Makes the send jobs waiting out their backoff due now, as time passing would. */
export async function makeEmailJobsDue(ctx: TestContext): Promise<void> {
  await sql`SELECT graphile_worker.reschedule_jobs(
      array(SELECT j.id FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
        WHERE t.identifier = ${TaskName.emailSend}), run_at => now())`.execute(ctx.deps.db);
}

/** A one-time product granting a license key of 3 activations. */
export const licensedProduct = (ctx: TestContext, organizationId: string, name: string) =>
  createProduct(ctx.deps, organizationId, {
    product: { name },
    prices: [{ amount_type: "fixed", price_amount: 10_000 }],
    benefits: [
      {
        type: "license_keys",
        description: "Desktop licence",
        properties: { prefix: "DSK", activations: { limit: 3, enable_customer_admin: true } },
      },
    ],
  });

/** A buyer's details as the confirm request takes them (France: the organization collects VAT there). */
export const BUYER = {
  customer_name: "Ada",
  customer_billing_address: { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postal_code: "75001" },
};

/** Opens a checkout through the API and pays it with the sandbox's test card; the confirm response's body. */
export async function payCheckout(ctx: TestContext, token: string, productId: string, buyer: { email: string; locale?: string }) {
  const session = await openCheckoutThroughApi(ctx, token, { products: [productId], ...(buyer.locale ? { locale: buyer.locale } : {}) });
  const response = await ctx.request({
    method: "POST",
    url: `/v1/checkouts/client/${session.client_secret}/confirm`,
    payload: {
      ...BUYER,
      customer_email: buyer.email,
      confirmation_token_id: "tok_visa",
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const order = await ctx.deps.db.selectFrom("orders").selectAll().where("checkout_id", "=", session.id).executeTakeFirstOrThrow();
  return { order, sessionToken: response.json<{ customer_session_token: string }>().customer_session_token };
}

/** The outbox rows of an order's confirmation. */
export const confirmationsOf = (ctx: TestContext, orderId: string) =>
  ctx.deps.db.selectFrom("emails").selectAll().where("dedupe_key", "=", `order_confirmation:${orderId}`).execute();
