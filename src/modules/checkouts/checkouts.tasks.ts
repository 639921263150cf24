import type { Task } from "graphile-worker";
import type { Deps } from "../../context.ts";
import { expireCheckout, findCheckoutForUpdate } from "./checkouts.repository.ts";
import { scheduleCheckoutExpiry, type CheckoutSessions } from "./checkouts.service.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

const isPayload = (value: unknown): value is { checkoutId: string } =>
  typeof value === "object" && value !== null && typeof (value as { checkoutId?: unknown }).checkoutId === "string";

/** A confirmed session whose charge waits on the buyer or the processor (`markAwaitingProcessor`): the intent it waits on. */
export const awaitedIntent = (checkout: CheckoutRow): string | null =>
  checkout.status === "confirmed" ? (checkout.payment_processor_metadata.intent_id ?? null) : null;

/** The checkout flow's abandonment, handed in by the composition root (features never import flows). */
export interface CheckoutAbandonment {
  /** Gives up, at the processor, the charge an expired confirmed session still waits on, then expires the session. */
  abandon(checkoutId: string): Promise<void>;
}

/**
 * `open` → `expired` at `expires_at`, with `checkout.expired`; a session still `confirmed` then,
 * its charge waiting on the buyer (3-D Secure never finished), is abandoned: the charge canceled at
 * the processor outside any transaction, then the session expired. A processor that cannot be
 * reached fails the job, which graphile-worker retries: the cancel is never lost. Idempotent: a
 * session completed or expired is left alone; one reached early (clock skew) is rescheduled.
 */
export function expireCheckoutTask(deps: Deps, sessions: CheckoutSessions, abandonment: CheckoutAbandonment): Task {
  return async (payload) => {
    if (!isPayload(payload)) return;
    await expireCheckoutWhenDue(deps, sessions, payload.checkoutId);
    await abandonment.abandon(payload.checkoutId);
  };
}

/** The expiry itself, also run by the sandbox test clock at an organization's time. */
export async function expireCheckoutWhenDue(deps: Deps, sessions: CheckoutSessions, checkoutId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await findCheckoutForUpdate(trx, { id: checkoutId }, null);
    if (!row || (row.status !== "open" && !awaitedIntent(row))) return;
    if (row.expires_at > deps.now()) {
      await scheduleCheckoutExpiry(trx, row.id, row.expires_at);
      return;
    }
    if (await expireCheckout(trx, row.id, deps.now())) await sessions.publish(trx, row.id, "checkout.expired");
  });
}

const isSettlePayload = (value: unknown): value is { checkoutId: string; confirmationToken: string | null } =>
  isPayload(value) && ["string", "object"].includes(typeof (value as { confirmationToken?: unknown }).confirmationToken);

/** The checkout flow's recovery, handed in by the composition root (features never import flows). */
export interface CheckoutRecovery {
  recover(checkoutId: string, confirmationToken: string | null): Promise<void>;
}

/** Recovery: settles a session whose confirm request died between confirmation and completion. */
export function settleCheckoutTask(confirmation: CheckoutRecovery): Task {
  return async (payload) => {
    if (isSettlePayload(payload)) await confirmation.recover(payload.checkoutId, payload.confirmationToken);
  };
}
