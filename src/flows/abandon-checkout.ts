import { awaitedIntent, findCheckoutWithRelations, markRefused } from "../modules/checkouts/checkouts.steps.ts";
import type { CheckoutFlowContext } from "./complete-checkout.ts";
import { recoverCheckout } from "./confirm-checkout.ts";

// An expired session whose charge the buyer never finished (3-D Secure left open): the charge given
// up at the processor, so it can no longer take money for a session nobody waits on.

/** The processor is still working on the charge (neither canceled nor paid): the expiry job asks again later. */
class ChargeStillSettling extends Error {
  constructor(checkoutId: string) {
    super(`checkout ${checkoutId}: its charge is still being processed`);
  }
}

/**
 * Abandons the charge an expired, still confirmed session waits on: cancels it at the processor
 * (outside any transaction; idempotent per session), then settles the session from the answer.
 * Canceled: the session `expired` (the discount given back, `checkout.expired`). Paid before the
 * cancel reached it (the buyer finished at the last moment): completed into its order as any paid
 * session is, never lost. Still processing: thrown, so the job runs again. A processor that cannot
 * be reached throws too. Does nothing for a session not waiting on a charge, or not expired yet.
 */
async function abandonExpiredCheckout(ctx: CheckoutFlowContext, checkoutId: string): Promise<void> {
  const { deps, sessions, payments } = ctx;
  const found = await findCheckoutWithRelations(deps.db, { id: checkoutId }, null);
  const intent = found ? awaitedIntent(found) : null;
  if (!found || !intent || found.expires_at > deps.now()) return;
  const outcome = await payments.cancelCharge(intent);
  if (outcome.status === "succeeded") {
    await recoverCheckout(ctx, checkoutId, null, intent);
    return;
  }
  if (outcome.status === "pending") throw new ChargeStillSettling(checkoutId);
  await deps.db.transaction().execute(async (trx) => {
    const row = await sessions.lock(trx, { id: checkoutId }, null);
    // Settled meanwhile (the processor's event, the recovery job), or a new intent: not this abandonment's to expire.
    if (awaitedIntent(row) !== intent) return;
    await markRefused(trx, row, "abandoned", deps.now());
    await sessions.publish(trx, row.id, "checkout.expired");
  });
}

/** The flow bound to the application's context: the expiry task's abandonment. */
export const checkoutAbandonment = (ctx: CheckoutFlowContext) => ({
  abandon: (checkoutId: string) => abandonExpiredCheckout(ctx, checkoutId),
});
