import type { SavedPaymentMethod } from "../adapters/payment-processors/payment-processor.ts";
import { RequestValidationError, ResourceNotFound, missingIssue } from "../http/errors.ts";
import type { CheckoutConfirm } from "../modules/checkouts/checkout-inputs.schemas.ts";
import type { CheckoutConfirmation } from "../modules/checkouts/checkouts.steps.ts";
import { NotOpenCheckout, PaymentError, assertOpenForBuyer } from "../modules/checkouts/checkouts.errors.ts";
import type { Checkout } from "../modules/checkouts/checkouts.schemas.ts";
import type { PublishedCheckout } from "../modules/checkouts/checkouts.steps.ts";
import {
  cancelSettleRecovery,
  findCheckoutWithRelations,
  markConfirmed,
  markRefused,
  missingForConfirm,
} from "../modules/checkouts/checkouts.steps.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import { completeCheckout, type CheckoutFlowContext } from "./complete-checkout.ts";

// Confirming a session: the buyer's confirmation, the charge, and the completion into a paid order.

/**
 * `open` → `confirmed` in one transaction that commits before the charge: the buyer's last edit,
 * the fields confirm requires, the discount redeemed and the recovery job scheduled.
 */
async function confirmSession(
  ctx: CheckoutFlowContext,
  clientSecret: string,
  input: CheckoutConfirm,
): Promise<PublishedCheckout & { organization: OrganizationRow }> {
  const { deps, sessions } = ctx;
  const { confirmation_token_id: token, ...changes } = input;
  return deps.db.transaction().execute(async (trx) => {
    const row = await sessions.lock(trx, { clientSecret }, null);
    assertOpenForBuyer(row, deps.now());
    await sessions.edit(trx, row, changes, "buyer", { confirming: true });
    const edited = await findCheckoutWithRelations(trx, { id: row.id }, null);
    if (!edited) throw new ResourceNotFound();
    const preview = sessions.view(edited);
    const issues = missingForConfirm(preview);
    if (preview.is_payment_form_required && !token) issues.push(missingIssue(["body", "confirmation_token_id"]));
    if (issues.length) throw new RequestValidationError(issues);
    await markConfirmed(trx, edited, token ?? null, deps.now());
    const published = await sessions.publish(trx, row.id, "checkout.updated");
    const organization = await sessions.organizationOf(trx, row.organization_id);
    return { ...published, organization };
  });
}

/** A refused charge settles a session still confirmed: reopened when declined, else failed. */
async function settleRefusal(ctx: CheckoutFlowContext, checkoutId: string, outcome: "declined" | "failed"): Promise<void> {
  await ctx.deps.db.transaction().execute(async (trx) => {
    const row = await ctx.sessions.lock(trx, { id: checkoutId }, null);
    if (row.status !== "confirmed") return;
    await markRefused(trx, row, outcome, ctx.deps.now());
    await ctx.sessions.publish(trx, row.id, "checkout.updated");
  });
}

/**
 * The charge, when the session needs a payment form (outside any transaction); a refusal settles
 * the session and throws the processor's message for the buyer.
 */
async function chargeSession(
  ctx: CheckoutFlowContext,
  checkout: Checkout,
  confirmationToken: string | null,
): Promise<{ paymentReference: string | null; savedMethod: SavedPaymentMethod | null }> {
  if (!checkout.is_payment_form_required || !confirmationToken) return { paymentReference: null, savedMethod: null };
  const outcome = await ctx.payments.charge({
    checkoutId: checkout.id,
    amount: checkout.is_payment_required ? checkout.total_amount : 0,
    currency: checkout.currency,
    confirmationToken,
    setupOnly: !checkout.is_payment_required,
    // A subscription charges the same method at each renewal.
    saveMethod: checkout.product?.is_recurring === true,
  });
  if (outcome.status !== "succeeded") {
    await settleRefusal(ctx, checkout.id, outcome.status);
    throw new PaymentError(outcome.message);
  }
  return { paymentReference: checkout.is_payment_required ? outcome.reference : null, savedMethod: outcome.method };
}

/**
 * Takes a confirmed session to its end: charge (when a payment form is needed), then complete it,
 * or reopen/fail it when the processor refuses. Called by the confirm request and, should that
 * request die half-way, by the recovery job; the processor call is idempotent per session and the
 * status checks under the row lock make the second caller a no-op. Returns the buyer's new
 * customer session token.
 */
async function settle(ctx: CheckoutFlowContext, checkout: Checkout, confirmationToken: string | null): Promise<string> {
  const charged = await chargeSession(ctx, checkout, confirmationToken);
  return ctx.deps.db.transaction().execute(async (trx) => {
    const row = await ctx.sessions.lock(trx, { id: checkout.id }, null);
    if (row.status !== "confirmed") throw new NotOpenCheckout();
    const full = await findCheckoutWithRelations(trx, { id: row.id }, null);
    if (!full) throw new ResourceNotFound();
    const organization = await ctx.sessions.organizationOf(trx, row.organization_id);
    await cancelSettleRecovery(trx, row.id);
    return completeCheckout(trx, ctx, { checkout: full, organization, ...charged });
  });
}

/**
 * Confirms, takes the payment, and completes. The confirmation commits first (status
 * `confirmed`, discount redeemed), so a second confirm of the same session is refused while
 * the payment is in flight; the processor is called outside any transaction.
 */
export async function confirmCheckout(
  ctx: CheckoutFlowContext,
  clientSecret: string,
  input: CheckoutConfirm,
): Promise<CheckoutConfirmation> {
  const confirmed = await confirmSession(ctx, clientSecret, input);
  const customerSessionToken = await settle(ctx, confirmed.checkout, input.confirmation_token_id ?? null);
  return { confirmed: confirmed.full, organization: confirmed.organization, customerSessionToken };
}

/** The recovery job's entry: settles a session still confirmed, else does nothing. */
export async function recoverCheckout(ctx: CheckoutFlowContext, checkoutId: string, confirmationToken: string | null): Promise<void> {
  const full = await findCheckoutWithRelations(ctx.deps.db, { id: checkoutId }, null);
  if (!full || full.status !== "confirmed") return;
  try {
    await settle(ctx, ctx.sessions.view(full), confirmationToken);
  } catch (error) {
    // A refusal is an outcome, recorded by settleRefusal; so is a session settled meanwhile.
    if (!(error instanceof PaymentError) && !(error instanceof NotOpenCheckout)) throw error;
  }
}

/** The flow bound to the application's context: the client service's confirm and the recovery task's recover. */
export const checkoutConfirmation = (ctx: CheckoutFlowContext) => ({
  confirm: (clientSecret: string, input: CheckoutConfirm) => confirmCheckout(ctx, clientSecret, input),
  recover: (checkoutId: string, confirmationToken: string | null) => recoverCheckout(ctx, checkoutId, confirmationToken),
});
