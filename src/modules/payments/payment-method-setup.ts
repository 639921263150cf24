import type { Executor } from "../../db/database.ts";
import type { PaymentProcessor, ProcessorCustomer, SavedPaymentMethod } from "../../adapters/payment-processors/payment-processor.ts";
import { customerMethodByReference, savePaymentMethod } from "./payment-methods.repository.ts";
import type { PaymentMethodRow } from "./payments.table.ts";

/**
 * Stores a method the processor saved for the customer, once: its handle saved before answers the
 * row saved then (a 3-D Secure setup confirmed twice saves one card); null when the customer has
 * deleted that row since (the card was detached: it is not saved again).
 */
export async function keepSavedMethod(
  db: Executor,
  input: { organizationId: string; customerId: string; method: SavedPaymentMethod; now: Date },
): Promise<PaymentMethodRow | null> {
  const saved = await customerMethodByReference(db, input.customerId, input.method.reference);
  if (saved) return saved.deleted_at === null ? saved : null;
  return savePaymentMethod(db, input);
}

/** Where a setup waits for the customer's 3-D Secure step: the client secret the page finishes it with. */
export interface PendingSetup {
  clientSecret: string;
  /** The processor's customer the setup is for (made by this setup, maybe): kept for the customer. */
  customerReference: string | null;
}

/**
 * Sets a new card up for later charges without charging it (the portal's "add a payment method")
 * and stores it; or the issuer's reason for refusing it; or, when the card needs 3-D Secure, what
 * the page needs to finish it (nothing is saved until the setup is confirmed).
 */
export async function setUpPaymentMethod(
  db: Executor,
  processor: PaymentProcessor,
  input: {
    organizationId: string;
    customerId: string;
    customer: ProcessorCustomer;
    confirmationToken: string;
    attemptId: string;
    now: Date;
  },
): Promise<{ method: PaymentMethodRow } | { refused: string } | { pending: PendingSetup }> {
  const outcome = await processor.setupMethod({
    attemptId: input.attemptId,
    customerId: input.customerId,
    organizationId: input.organizationId,
    customer: input.customer,
    confirmationToken: input.confirmationToken,
  });
  if (outcome.status === "pending")
    return { pending: { clientSecret: outcome.clientSecret, customerReference: outcome.customerReference } };
  if (outcome.status !== "succeeded") return { refused: outcome.message };
  return {
    method: await savePaymentMethod(db, {
      organizationId: input.organizationId,
      customerId: input.customerId,
      method: outcome.method,
      now: input.now,
    }),
  };
}
