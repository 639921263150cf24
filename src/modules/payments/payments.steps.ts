import type { Executor } from "../../db/database.ts";
import { insertPayment, savePaymentMethod } from "./payments.repository.ts";
import type { PaymentRow, PaymentTrigger } from "./payments.table.ts";

// The payment operations other modules and flows run inside their own transaction.

export { savePaymentMethod };

/** Records a payment the processor took for an order: succeeded, under the processor's charge reference. */
export const recordPayment = (
  db: Executor,
  input: {
    organizationId: string;
    customerId: string;
    orderId: string;
    methodId: string | null;
    trigger: PaymentTrigger;
    amount: number;
    currency: string;
    reference: string;
    now: Date;
  },
): Promise<PaymentRow> =>
  insertPayment(db, {
    created_at: input.now,
    modified_at: null,
    organization_id: input.organizationId,
    customer_id: input.customerId,
    order_id: input.orderId,
    payment_method_id: input.methodId,
    status: "succeeded",
    trigger: input.trigger,
    amount: input.amount,
    currency: input.currency,
    processor_reference: input.reference,
    decline_message: null,
  });
