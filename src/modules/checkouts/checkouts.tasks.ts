import type { Task } from "graphile-worker";
import type { Deps } from "../../context.ts";
import { expireCheckout, findCheckoutForUpdate } from "./checkouts.repository.ts";
import { scheduleCheckoutExpiry, type CheckoutSessions } from "./checkouts.service.ts";

const isPayload = (value: unknown): value is { checkoutId: string } =>
  typeof value === "object" && value !== null && typeof (value as { checkoutId?: unknown }).checkoutId === "string";

/**
 * `open` → `expired` at `expires_at`, with `checkout.expired`. Idempotent: a session already
 * confirmed, completed or expired is left alone; one reached early (clock skew) is rescheduled.
 */
export function expireCheckoutTask(deps: Deps, sessions: CheckoutSessions): Task {
  return async (payload) => {
    if (isPayload(payload)) await expireCheckoutWhenDue(deps, sessions, payload.checkoutId);
  };
}

/** The expiry itself, also run by the sandbox test clock at an organization's time. */
export async function expireCheckoutWhenDue(deps: Deps, sessions: CheckoutSessions, checkoutId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await findCheckoutForUpdate(trx, { id: checkoutId }, null);
    if (!row || row.status !== "open") return;
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
