import type { Deps } from "../../context.ts";
import { removeJob } from "../../jobs/queue.ts";
import { ResourceNotFound } from "../../kit/errors.ts";
import { releaseDiscount } from "../discounts/discount-redemptions.repository.ts";
import type { PaymentProcessor } from "../payments/payment-processor.ts";
import { completeCheckout } from "./checkouts.completion.ts";
import { NotOpenCheckout, PaymentError } from "./checkouts.errors.ts";
import { findCheckoutWithRelations, updateCheckout } from "./checkouts.repository.ts";
import type { Checkout } from "./checkouts.schemas.ts";
import type { CheckoutStore } from "./checkouts.store.ts";

export const CHECKOUT_SETTLE_TASK = "checkout.settle";

/** How long the confirm request has to settle before the recovery job takes over. */
export const SETTLE_RECOVERY_DELAY_MS = 5 * 60 * 1000;

/**
 * Takes a confirmed session to its end: charge (when a payment form is needed), then complete it,
 * or reopen/fail it when the processor refuses. Called by the confirm request and, should that
 * request die half-way, by the recovery job; the processor call is idempotent per session and the
 * status checks under the row lock make the second caller a no-op.
 */
export function createSettlement(deps: Deps, store: CheckoutStore, payments: PaymentProcessor) {
  async function settleFailure(checkoutId: string, outcome: "declined" | "failed"): Promise<void> {
    await deps.db.transaction().execute(async (trx) => {
      const row = await store.lock(trx, { id: checkoutId }, null);
      if (row.status !== "confirmed") return;
      await updateCheckout(trx, row.id, { status: outcome === "declined" ? "open" : "failed", modified_at: deps.now() });
      if (row.discount_id) await releaseDiscount(trx, row.discount_id);
      await removeJob(trx, `${CHECKOUT_SETTLE_TASK}:${row.id}`);
      await store.publish(trx, row.id, "checkout.updated");
    });
  }

  /** Returns the buyer's new customer session token. */
  async function settle(checkout: Checkout, confirmationToken: string | null): Promise<string> {
    let paymentReference: string | null = null;
    if (checkout.is_payment_form_required && confirmationToken) {
      const outcome = await payments.charge({
        checkoutId: checkout.id,
        amount: checkout.is_payment_required ? checkout.total_amount : 0,
        currency: checkout.currency,
        confirmationToken,
        setupOnly: !checkout.is_payment_required,
      });
      if (outcome.status !== "succeeded") {
        await settleFailure(checkout.id, outcome.status);
        throw new PaymentError(outcome.message);
      }
      if (checkout.is_payment_required) paymentReference = outcome.reference;
    }
    return deps.db.transaction().execute(async (trx) => {
      const row = await store.lock(trx, { id: checkout.id }, null);
      if (row.status !== "confirmed") throw new NotOpenCheckout();
      const full = await findCheckoutWithRelations(trx, { id: row.id }, null);
      if (!full) throw new ResourceNotFound();
      const organization = await store.organizationOf(trx, row.organization_id);
      await removeJob(trx, `${CHECKOUT_SETTLE_TASK}:${row.id}`);
      return completeCheckout(trx, deps, store, { checkout: full, organization, paymentReference });
    });
  }

  /** The recovery job's entry: settles a session still confirmed, else does nothing. */
  async function recover(checkoutId: string, confirmationToken: string | null): Promise<void> {
    const full = await findCheckoutWithRelations(deps.db, { id: checkoutId }, null);
    if (!full || full.status !== "confirmed") return;
    try {
      await settle(store.view(full), confirmationToken);
    } catch (error) {
      // A refusal is an outcome, recorded by settleFailure; so is a session settled meanwhile.
      if (!(error instanceof PaymentError) && !(error instanceof NotOpenCheckout)) throw error;
    }
  }

  return { settle, recover };
}
