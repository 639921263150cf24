import type { Executor } from "../../db/database.ts";
import { succeededPayment } from "./payments.repository.ts";

/** The payment whose charge gives an order's money back: its id and the processor's charge; undefined when there is none to refund. */
export async function refundableCharge(db: Executor, orderId: string): Promise<{ id: string; chargeReference: string } | undefined> {
  const payment = await succeededPayment(db, orderId);
  return payment?.processor_reference ? { id: payment.id, chargeReference: payment.processor_reference } : undefined;
}
