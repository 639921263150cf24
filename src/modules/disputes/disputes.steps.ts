import type { Executor } from "../../db/database.ts";
import { scaleHalfToEven } from "../../values/money.ts";
import { revokeOrderBenefits } from "../benefits/benefit-revocations.steps.ts";
import type { EmailConfig } from "../../email-config.ts";
import { writeDisputeOpenedEmail } from "../emails/seller-notices.steps.ts";
import { findOrder } from "../orders/orders.steps.ts";
import type { OrderRow } from "../orders/orders.table.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { succeededPaymentByReference } from "../payments/payments.steps.ts";
import { isClosed } from "./disputes.mapper.ts";
import { findDisputeByProcessorIdForUpdate, insertDisputeIfNew, updateDispute } from "./disputes.repository.ts";
import type { DisputeRow, DisputeStatus } from "./disputes.table.ts";

// A dispute's rows as the processor reports them, for the processor's webhook inbox and the accept.

/** A dispute as a processor's event reports it, its status already mapped to the reference's. */
export interface ProcessorDispute {
  /** When the caller knows whose account the event came from: a payment of another organization is not matched. */
  organizationId?: string;
  /** The processor's reference of the disputed charge, as the payment row stores it. */
  paymentReference: string;
  processorDisputeId: string;
  status: DisputeStatus;
  /** The disputed total, tax included, in minor units. */
  amount: number;
  currency: string;
  reason: string | null;
  evidenceDueBy: Date | null;
  /** The processor event's own instant (Stripe's `created`): what orders the states of one dispute. */
  processorEventCreatedAt: Date;
}

/** The state a later event (or the processor's answer to an accept) brings. */
type DisputeState = Pick<DisputeRow, "status" | "processor_updated_at"> & Partial<Pick<DisputeRow, "reason" | "evidence_due_by">>;

/**
 * Whether `next` may replace the stored state: a later event always does; one of the same instant
 * (the processor's clock counts seconds) does unless the dispute is closed already, so a
 * `closed` and an `updated` of one second never reopen it. An older event never does.
 */
const supersedes = (stored: DisputeRow, next: DisputeState): boolean => {
  const delta = next.processor_updated_at.getTime() - stored.processor_updated_at.getTime();
  return delta > 0 || (delta === 0 && !isClosed(stored.status));
};

/** What a dispute's new state changes beyond its row: a lost one takes back what the order granted. */
async function followOutcome(db: Executor, previous: DisputeStatus | null, dispute: DisputeRow, now: Date): Promise<void> {
  if (dispute.status === "lost" && previous !== "lost") await revokeOrderBenefits(db, dispute.order_id, now);
}

/** Moves the locked dispute to `next` when it supersedes the stored state; returns the dispute as it then stands. */
export async function applyDisputeState(db: Executor, stored: DisputeRow, next: DisputeState, now: Date): Promise<DisputeRow> {
  if (!supersedes(stored, next)) return stored;
  const updated = await updateDispute(db, stored.id, { ...next, modified_at: now });
  await followOutcome(db, stored.status, updated, now);
  return updated;
}

/** The seller hears of a dispute when its first event is recorded (whatever state that event brings). */
async function tellSeller(db: Executor, email: EmailConfig, opened: { dispute: DisputeRow; order: OrderRow; now: Date }) {
  const { dispute, order, now } = opened;
  const organization = await findOrganization(db, dispute.organization_id, null);
  if (!organization) return;
  await writeDisputeOpenedEmail(db, email, {
    organization,
    disputeId: dispute.id,
    amount: dispute.amount + dispute.tax_amount,
    currency: dispute.currency,
    order: { description: order.description, invoiceNumber: order.invoice_number },
    reason: dispute.reason,
    evidenceDueBy: dispute.evidence_due_by,
    now,
  });
}

/**
 * Records a processor's dispute event in the caller's transaction: the dispute of the payment the
 * event names, created at its first event and moved by later ones in the processor's order (an
 * older event delivered late changes nothing). The disputed total splits into the order's net and
 * tax shares as the order's total does. Undefined when no succeeded payment (of the organization,
 * when given) carries the reference: not a charge of this service.
 */
export async function recordProcessorDispute(
  db: Executor,
  email: EmailConfig,
  input: ProcessorDispute,
  now: Date,
): Promise<DisputeRow | undefined> {
  const payment = await succeededPaymentByReference(db, input.paymentReference);
  if (!payment || (input.organizationId !== undefined && payment.organization_id !== input.organizationId)) return undefined;
  const order = await findOrder(db, payment.order_id, { allowed: [payment.organization_id] });
  if (!order) return undefined;
  const taxAmount =
    order.total_amount > 0 ? Math.min(scaleHalfToEven(input.amount, order.tax_amount, order.total_amount), input.amount) : 0;
  const state = {
    status: input.status,
    reason: input.reason,
    evidence_due_by: input.evidenceDueBy,
    processor_updated_at: input.processorEventCreatedAt,
  };
  const inserted = await insertDisputeIfNew(db, {
    ...state,
    created_at: now,
    modified_at: null,
    organization_id: payment.organization_id,
    order_id: payment.order_id,
    payment_id: payment.id,
    customer_id: payment.customer_id,
    amount: input.amount - taxAmount,
    tax_amount: taxAmount,
    currency: input.currency,
    processor_dispute_id: input.processorDisputeId,
  });
  if (inserted) {
    await followOutcome(db, null, inserted, now);
    await tellSeller(db, email, { dispute: inserted, order, now });
    return inserted;
  }
  // Known already (or inserted by a racing event, whose commit the lock waits for).
  const stored = await findDisputeByProcessorIdForUpdate(db, input.processorDisputeId);
  if (!stored) throw new Error(`dispute ${input.processorDisputeId} neither inserted nor found`);
  return applyDisputeState(db, stored, state, now);
}
