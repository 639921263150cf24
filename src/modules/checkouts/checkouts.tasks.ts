import type { Task } from "graphile-worker";
import type { Deps } from "../../context.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { expireCheckout, findCheckoutForUpdate } from "./checkouts.repository.ts";
import { CHECKOUT_EXPIRE_TASK } from "./checkouts.service.ts";
import { createCheckoutStore } from "./checkouts.store.ts";
import { rateTableTaxEngine } from "../tax/tax.engine.ts";

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
