import type { Executor } from "../../db/database.ts";
import type { PaymentProcessor, ProcessorCustomer } from "../../adapters/payment-processors/payment-processor.ts";
import { savePaymentMethod } from "./payments.repository.ts";
import type { PaymentMethodRow } from "./payments.table.ts";

const AUTHENTICATION_NOT_SUPPORTED = "This card needs authentication (3-D Secure), which adding a card here does not support yet.";

/**
 * Sets a new card up for later charges without charging it (the portal's "add a payment method",
 * a retry with a new card) and stores it; or the issuer's reason for refusing it.
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
): Promise<{ method: PaymentMethodRow } | { refused: string }> {
  const outcome = await processor.setupMethod({
    attemptId: input.attemptId,
    customerId: input.customerId,
    organizationId: input.organizationId,
    customer: input.customer,
    confirmationToken: input.confirmationToken,
  });
  // The portal cannot finish a 3-D Secure step on a new card yet (docs/decisions.md, "Stripe: what is not served yet").
  if (outcome.status === "pending") return { refused: AUTHENTICATION_NOT_SUPPORTED };
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
