import { AppError, RequestValidationError, ResourceNotFound, missingIssue } from "../http/errors.ts";
import { countCheckoutConfirm, type CheckoutConfirmResult } from "../observability/operation-counters.ts";
import type { CheckoutConfirm } from "../modules/checkouts/checkout-inputs.schemas.ts";
import type { CheckoutConfirmation } from "../modules/checkouts/checkouts.steps.ts";
import { NotOpenCheckout, PaymentError, assertOpenForBuyer } from "../modules/checkouts/checkouts.errors.ts";
import type { Checkout } from "../modules/checkouts/checkouts.schemas.ts";
import type { PublishedCheckout } from "../modules/checkouts/checkouts.steps.ts";
import {
  cancelSettleRecovery,
  findCheckoutWithRelations,
  markAwaitingProcessor,
  markConfirmed,
  markRefused,
  missingForConfirm,
} from "../modules/checkouts/checkouts.steps.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";
import { completeCheckout, type CheckoutFlowContext, type Completion } from "./complete-checkout.ts";
import type { Executor } from "../db/database.ts";
import { openCustomerSession, processorCustomerOfBuyer } from "../modules/customers/customers.steps.ts";
import { setRequestClockOffset } from "../values/clock.ts";

// Confirming a session: the buyer's confirmation, the charge, and the completion into a paid order.

/** A session as its confirmation committed it, with its organization: what its completion starts from. */
type Confirmed = PublishedCheckout & { organization: OrganizationRow };

/**
 * `open` → `confirmed` in one transaction that commits before the charge: the buyer's last edit,
 * the fields confirm requires, the discount redeemed and the recovery job scheduled (with the
 * session's event).
 */
async function confirmSession(ctx: CheckoutFlowContext, clientSecret: string, input: CheckoutConfirm): Promise<Confirmed> {
  const { deps, sessions } = ctx;
  const { confirmation_token_id: token, ...changes } = input;
  return deps.db.transaction().execute(async (trx) => {
    const row = await sessions.lock(trx, { clientSecret }, null);
    const organization = await sessions.organizationOf(trx, row.organization_id);
    // A buyer's request carries no token to set the clock: a sandbox organization that advanced its
    // test clock sells at its own time, from here on (the charge and the completion too).
    setRequestClockOffset(organization.clock_offset_ms);
    assertOpenForBuyer(row, deps.now());
    const edited = await sessions.edit(trx, row, changes, "buyer", { confirming: true, organization });
    const preview = sessions.view(edited);
    const issues = missingForConfirm(preview);
    if (preview.is_payment_form_required && !token) issues.push(missingIssue(["body", "confirmation_token_id"]));
    if (issues.length) throw new RequestValidationError(issues);
    const { confirmed, recovery } = await markConfirmed(trx, edited, token ?? null, deps.now());
    // Confirming writes the session's row only, but redeems its discount, whose count the view shows: read again then.
    const current = edited.discount_id ? undefined : { ...edited, ...confirmed };
    const published = await sessions.publish(trx, row.id, "checkout.updated", current, [recovery]);
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

/** What the processor's charge gave a session it settled: nothing at all when no payment form was needed. */
type Charged = Pick<Completion, "paymentReference" | "savedMethod" | "customerReference">;

/** How the session's money is asked for: charged with the buyer's confirmation token, or an intent already started. */
type PaymentSource = { confirmationToken: string } | { intentReference: string };

/** The processor's answer for the session: a new charge, or where the intent it started stands. */
async function askProcessor(ctx: CheckoutFlowContext, checkout: Checkout, source: PaymentSource) {
  if ("intentReference" in source) return ctx.payments.lookupCharge(source.intentReference);
  const buyer = { customerId: checkout.customer_id, externalId: checkout.external_customer_id, email: checkout.customer_email ?? "" };
  return ctx.payments.charge({
    checkoutId: checkout.id,
    organizationId: checkout.organization_id,
    customer: {
      reference: await processorCustomerOfBuyer(ctx.deps.db, checkout.organization_id, buyer),
      email: buyer.email,
      name: checkout.customer_name,
    },
    amount: checkout.is_payment_required ? checkout.total_amount : 0,
    currency: checkout.currency,
    confirmationToken: source.confirmationToken,
    setupOnly: !checkout.is_payment_required,
    // A subscription charges the same method at each renewal.
    saveMethod: checkout.product?.is_recurring === true,
  });
}

/** The intent waits for the buyer (3-D Secure) or the processor: the session stays confirmed, with what the page needs. */
async function awaitProcessor(
  ctx: CheckoutFlowContext,
  checkoutId: string,
  intent: { reference: string; clientSecret: string | null; customerReference: string | null },
) {
  await ctx.deps.db.transaction().execute(async (trx) => {
    const row = await ctx.sessions.lock(trx, { id: checkoutId }, null);
    if (row.status !== "confirmed") return;
    await markAwaitingProcessor(trx, row, intent, ctx.deps.now());
    await ctx.sessions.publish(trx, row.id, "checkout.updated");
  });
}

/**
 * The charge, when the session needs a payment form (outside any transaction); null while the
 * processor has not settled it. A refusal settles the session and throws the processor's message
 * for the buyer.
 */
async function chargeSession(ctx: CheckoutFlowContext, checkout: Checkout, source: PaymentSource | null): Promise<Charged | null> {
  if (!checkout.is_payment_form_required || !source) return { paymentReference: null, savedMethod: null, customerReference: null };
  const outcome = await askProcessor(ctx, checkout, source);
  if (outcome.status === "pending") {
    await awaitProcessor(ctx, checkout.id, outcome);
    return null;
  }
  if (outcome.status !== "succeeded") {
    await settleRefusal(ctx, checkout.id, outcome.status);
    throw new PaymentError(outcome.message);
  }
  return {
    paymentReference: checkout.is_payment_required ? outcome.reference : null,
    savedMethod: outcome.method,
    customerReference: outcome.customerReference,
  };
}

/**
 * Takes a confirmed session to its end: charge (when a payment form is needed), then complete it,
 * or reopen/fail it when the processor refuses. Called by the confirm request, by the processor's
 * events (`intentReference`: the intent they are about) and, should the request die half-way, by
 * the recovery job; the processor call is idempotent per session and the status checks under the
 * row lock make the later caller a no-op. Returns the buyer's new customer session token: also to
 * a caller that finds the session completed by another (a processor's event may win the race to
 * the row), null while the processor has not settled the charge. `confirmed`: the session as the
 * same request's confirmation committed it, which spares the completion reading it again.
 */
async function settle(
  ctx: CheckoutFlowContext,
  checkout: Checkout,
  source: PaymentSource | null,
  confirmed?: Confirmed,
): Promise<string | null> {
  const charged = await chargeSession(ctx, checkout, source);
  if (!charged) return null;
  return ctx.deps.db.transaction().execute(async (trx) => {
    const row = await ctx.sessions.lock(trx, { id: checkout.id }, null);
    if (row.status === "succeeded" && row.customer_id) return (await sessionForBuyer(trx, ctx, row.organization_id, row.customer_id)).token;
    if (row.status !== "confirmed") throw new NotOpenCheckout();
    // Still confirmed, so unchanged since the confirmation: its products and discount as the buyer
    // confirmed them, its own row as locked now.
    const full = confirmed ? { ...confirmed.full, ...row } : await findCheckoutWithRelations(trx, { id: row.id }, null);
    if (!full) throw new ResourceNotFound();
    const organization = confirmed?.organization ?? (await ctx.sessions.organizationOf(trx, row.organization_id));
    await cancelSettleRecovery(trx, row.id);
    return completeCheckout(trx, ctx, { checkout: full, organization, ...charged });
  });
}

const sessionForBuyer = (trx: Executor, ctx: CheckoutFlowContext, organizationId: string, customerId: string) =>
  openCustomerSession(trx, ctx.deps, { organizationId, customerId, memberId: null, returnUrl: null, now: ctx.deps.now() });

/**
 * Confirms, takes the payment, and completes. The confirmation commits first (status
 * `confirmed`, discount redeemed), so a second confirm of the same session is refused while
 * the payment is in flight; the processor is called outside any transaction. A charge waiting
 * for the buyer (3-D Secure) answers the session as it waits, with no customer session yet.
 */
export async function confirmCheckout(
  ctx: CheckoutFlowContext,
  clientSecret: string,
  input: CheckoutConfirm,
): Promise<CheckoutConfirmation> {
  try {
    const confirmation = await confirmAndSettle(ctx, clientSecret, input);
    countCheckoutConfirm(confirmation.customerSessionToken === null ? "requires_action" : "succeeded");
    return confirmation;
  } catch (error) {
    countCheckoutConfirm(confirmFailure(error));
    throw error;
  }
}

/** What a confirm that threw counts as: the processor's refusal, the request's (a 4xx), or an error. */
const confirmFailure = (error: unknown): CheckoutConfirmResult =>
  error instanceof PaymentError ? "payment_failed" : error instanceof AppError && error.statusCode < 500 ? "rejected" : "error";

async function confirmAndSettle(ctx: CheckoutFlowContext, clientSecret: string, input: CheckoutConfirm): Promise<CheckoutConfirmation> {
  const confirmed = await confirmSession(ctx, clientSecret, input);
  const token = input.confirmation_token_id;
  const customerSessionToken = await settle(ctx, confirmed.checkout, token ? { confirmationToken: token } : null, confirmed);
  const waiting =
    customerSessionToken === null ? await findCheckoutWithRelations(ctx.deps.db, { id: confirmed.checkout.id }, null) : undefined;
  return { confirmed: waiting ?? confirmed.full, organization: confirmed.organization, customerSessionToken };
}

/**
 * Settles a session still confirmed, else does nothing: the recovery job's entry (a request that
 * died half-way; the idempotent charge answers what happened), and the processor events' (about
 * the intent `intentReference`).
 */
export async function recoverCheckout(
  ctx: CheckoutFlowContext,
  checkoutId: string,
  confirmationToken: string | null,
  intentReference: string | null = null,
): Promise<void> {
  const full = await findCheckoutWithRelations(ctx.deps.db, { id: checkoutId }, null);
  if (!full || full.status !== "confirmed") return;
  // An intent the session already waits on is asked about, never started again.
  const known = intentReference ?? full.payment_processor_metadata.intent_id;
  const source = known ? { intentReference: known } : confirmationToken ? { confirmationToken } : null;
  try {
    await settle(ctx, ctx.sessions.view(full), source);
  } catch (error) {
    // A refusal is an outcome, recorded by settleRefusal; so is a session settled meanwhile.
    if (!(error instanceof PaymentError) && !(error instanceof NotOpenCheckout)) throw error;
  }
}

/** The flow bound to the application's context: the client service's confirm and the recovery task's recover. */
export const checkoutConfirmation = (ctx: CheckoutFlowContext) => ({
  confirm: (clientSecret: string, input: CheckoutConfirm) => confirmCheckout(ctx, clientSecret, input),
  recover: (checkoutId: string, confirmationToken: string | null) => recoverCheckout(ctx, checkoutId, confirmationToken),
  /** A processor's event about the intent of a session (succeeded, failed): settles it from the processor's answer. */
  settleFromProcessor: (checkoutId: string, intentReference: string) => recoverCheckout(ctx, checkoutId, null, intentReference),
});
