import type { Task } from "graphile-worker";
import type { Deps } from "../../context.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { expireCheckout, findCheckoutForUpdate } from "./checkouts.repository.ts";
import { CHECKOUT_EXPIRE_TASK } from "./checkouts.service.ts";
import { createCheckoutStore } from "./checkouts.store.ts";
import { rateTableTaxEngine } from "../tax/tax.engine.ts";
import type { PaymentProcessor } from "../payments/payment-processor.ts";
import { sandboxProcessor } from "../payments/sandbox.processor.ts";
import { createSettlement } from "./checkouts.settlement.ts";

const isPayload = (value: unknown): value is { checkoutId: string } =>
  typeof value === "object" && value !== null && typeof (value as { checkoutId?: unknown }).checkoutId === "string";

/**
 * `open` → `expired` at `expires_at`, with `checkout.expired`. Idempotent: a session already
 * confirmed, completed or expired is left alone; one reached early (clock skew) is rescheduled.
 */
export function expireCheckoutTask(deps: Deps): Task {
  const store = createCheckoutStore(deps, rateTableTaxEngine);
  return async (payload) => {
    if (!isPayload(payload)) return;
    await deps.db.transaction().execute(async (trx) => {
      const row = await findCheckoutForUpdate(trx, { id: payload.checkoutId }, null);
      if (!row || row.status !== "open") return;
      if (row.expires_at > deps.now()) {
        await enqueueJob(trx, CHECKOUT_EXPIRE_TASK, payload, { runAt: row.expires_at, jobKey: `${CHECKOUT_EXPIRE_TASK}:${row.id}` });
        return;
      }
      if (await expireCheckout(trx, row.id, deps.now())) await store.publish(trx, row.id, "checkout.expired");
    });
  };
}

const isSettlePayload = (value: unknown): value is { checkoutId: string; confirmationToken: string | null } =>
  isPayload(value) && ["string", "object"].includes(typeof (value as { confirmationToken?: unknown }).confirmationToken);

/** Recovery: settles a session whose confirm request died between confirmation and completion. */
export function settleCheckoutTask(deps: Deps, payments: PaymentProcessor = sandboxProcessor): Task {
  const settlement = createSettlement(deps, createCheckoutStore(deps, rateTableTaxEngine), payments);
  return async (payload) => {
    if (isSettlePayload(payload)) await settlement.recover(payload.checkoutId, payload.confirmationToken);
  };
}
