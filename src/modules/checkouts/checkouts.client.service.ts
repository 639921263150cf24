import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { RequestValidationError, ResourceNotFound, type ValidationIssue } from "../../kit/errors.ts";
import { redeemDiscount } from "../discounts/discount-redemptions.repository.ts";
import type { PaymentProcessor } from "../payments/payment-processor.ts";
import { sandboxProcessor } from "../payments/sandbox.processor.ts";
import { rateTableTaxEngine, type TaxEngine } from "../tax/tax.engine.ts";
import { DiscountRedemptionLimitReached, ExpiredCheckoutError, NotOpenCheckout } from "./checkouts.errors.ts";
import type { CheckoutConfirm, CheckoutUpdatePublic } from "./checkouts.inputs.ts";
import { toCheckoutPublic } from "./checkouts.public.mapper.ts";
import type { CheckoutPublic, CheckoutPublicConfirmed } from "./checkouts.public.schemas.ts";
import { findCheckoutWithRelations, updateCheckout } from "./checkouts.repository.ts";
import type { Checkout } from "./checkouts.schemas.ts";
import { CHECKOUT_SETTLE_TASK, SETTLE_RECOVERY_DELAY_MS, createSettlement } from "./checkouts.settlement.ts";
import { createCheckoutStore } from "./checkouts.store.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

const missing = (loc: (string | number)[]): ValidationIssue => ({ loc: ["body", ...loc], msg: "Field required", type: "missing", input: null });

/** What confirm needs filled in: the email, the address fields the form requires, a business's name. */
function missingForConfirm(checkout: Checkout): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (checkout.product_id === null) issues.push(missing(["product_id"]));
  if (!checkout.customer_email) issues.push(missing(["customer_email"]));
  if (checkout.is_business_customer && !checkout.customer_billing_name) issues.push(missing(["customer_billing_name"]));
  const addressNeeded = checkout.is_payment_form_required || checkout.is_business_customer || checkout.require_billing_address;
  const address = checkout.customer_billing_address;
  if (addressNeeded && !address) issues.push(missing(["customer_billing_address"]));
  else if (addressNeeded && address) {
    for (const [field, mode] of Object.entries(checkout.billing_address_fields)) {
      if (mode === "required" && !address[field as keyof typeof address]) issues.push(missing(["customer_billing_address", field]));
    }
  }
  return issues;
}

/** The buyer's side of a session: reached by its client secret, no token needed. */
export function createCheckoutClientService(deps: Deps, payments: PaymentProcessor = sandboxProcessor, taxEngine: TaxEngine = rateTableTaxEngine) {
  const store = createCheckoutStore(deps, taxEngine);
  const settlement = createSettlement(deps, store, payments);
  const { urls } = store;

  const assertUsable = (row: Pick<CheckoutRow, "status" | "expires_at">) => {
    if (row.status === "expired" || row.expires_at < deps.now()) throw new ExpiredCheckoutError();
  };
  const assertOpen = (row: CheckoutRow) => {
    assertUsable(row);
    if (row.status !== "open") throw new NotOpenCheckout();
  };

  async function view(db: Executor, clientSecret: string): Promise<CheckoutPublic> {
    const row = await findCheckoutWithRelations(db, { clientSecret }, null);
    if (!row) throw new ResourceNotFound();
    assertUsable(row);
    return toCheckoutPublic(row, urls, await store.organizationOf(db, row.organization_id));
  }

  return {
    get: (clientSecret: string) => view(deps.db, clientSecret),

    async update(clientSecret: string, input: CheckoutUpdatePublic): Promise<CheckoutPublic> {
      return deps.db.transaction().execute(async (trx) => {
        const row = await store.lock(trx, { clientSecret }, null);
        assertOpen(row);
        await store.edit(trx, row, input, "buyer");
        const { full } = await store.publish(trx, row.id, "checkout.updated");
        return toCheckoutPublic(full, urls, await store.organizationOf(trx, row.organization_id));
      });
    },

    /**
     * Confirms, takes the payment, and completes. The confirmation commits first (status
     * `confirmed`, discount redeemed), so a second confirm of the same session is refused while
     * the payment is in flight; the processor is called outside any transaction.
     */
    async confirm(clientSecret: string, input: CheckoutConfirm): Promise<CheckoutPublicConfirmed> {
      const { confirmation_token_id: token, ...changes } = input;
      const confirmed = await deps.db.transaction().execute(async (trx) => {
        const row = await store.lock(trx, { clientSecret }, null);
        assertOpen(row);
        await store.edit(trx, row, changes, "buyer");
        const edited = await findCheckoutWithRelations(trx, { id: row.id }, null);
        if (!edited) throw new ResourceNotFound();
        const preview = store.view(edited);
        const issues = missingForConfirm(preview);
        if (preview.is_payment_form_required && !token) issues.push(missing(["confirmation_token_id"]));
        if (issues.length) throw new RequestValidationError(issues);
        if (edited.discount_id && !(await redeemDiscount(trx, edited.discount_id))) throw new DiscountRedemptionLimitReached();
        await updateCheckout(trx, row.id, { status: "confirmed", modified_at: deps.now() });
        // Should this request die between charge and completion, the job settles the session.
        await enqueueJob(trx, CHECKOUT_SETTLE_TASK, { checkoutId: row.id, confirmationToken: token ?? null }, {
          runAt: new Date(deps.now().getTime() + SETTLE_RECOVERY_DELAY_MS),
          jobKey: `${CHECKOUT_SETTLE_TASK}:${row.id}`,
        });
        const published = await store.publish(trx, row.id, "checkout.updated");
        const organization = await store.organizationOf(trx, row.organization_id);
        return { ...published, organization };
      });

      const sessionToken = await settlement.settle(confirmed.checkout, token ?? null);
      const view = toCheckoutPublic(confirmed.full, urls, confirmed.organization);
      return { ...view, status: "confirmed", customer_session_token: sessionToken };
    },
  };
}
export type CheckoutClientService = ReturnType<typeof createCheckoutClientService>;
