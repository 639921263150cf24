import type { Executor } from "../../db/database.ts";
import type { PaymentProcessor } from "../../adapters/payment-processors/payment-processor.ts";
import { savePaymentMethod } from "./payments.repository.ts";
import type { PaymentMethodRow } from "./payments.table.ts";

/**
 * Sets a new card up for later charges without charging it (the portal's "add a payment method",
 * a retry with a new card) and stores it; or the issuer's reason for refusing it.
 */
export async function setUpPaymentMethod(
  db: Executor,
  processor: PaymentProcessor,
  input: { organizationId: string; customerId: string; confirmationToken: string; attemptId: string; now: Date },
): Promise<{ method: PaymentMethodRow } | { refused: string }> {
  const outcome = await processor.setupMethod({
    attemptId: input.attemptId,
    customerId: input.customerId,
    confirmationToken: input.confirmationToken,
  });
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
