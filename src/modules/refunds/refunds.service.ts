import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { asList, paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { revokeOrderBenefits } from "../benefits/benefit-grants.service.ts";
import { issueCreditNote } from "../orders/credit-notes.service.ts";
import { rerenderReceipt, type DocumentLink, type OrderDocumentService } from "../orders/order-documents.service.ts";
import { refundableAmount } from "../orders/orders.mapper.ts";
import { findOrderForUpdate, updateOrder } from "../orders/orders.repository.ts";
import { publishOrderUpdated } from "../orders/orders.service.ts";
import type { OrderRow, OrderStatus } from "../orders/orders.table.ts";
import type { PaymentProcessor } from "../../adapters/payment-processors/payment-processor.ts";
import { succeededPayment } from "../payments/payments.repository.ts";
import { refundTaxShare, statusAfterRefund } from "./refund-amounts.ts";
import type { RefundCreate, RefundListQuery } from "./refund-inputs.schemas.ts";
import {
  RefundedAlready,
  RefundUnknownPayment,
  RevokeSubscriptionBenefitsProhibited,
  amountAboveRefundable,
  orderNotFound,
} from "./refunds.errors.ts";
import { toRefund } from "./refunds.mapper.ts";
import { countRefunds, findRefund, insertRefund, listRefunds, updateRefund } from "./refunds.repository.ts";
import type { Refund } from "./refunds.schemas.ts";
import type { RefundRow } from "./refunds.table.ts";

/** Only a paid order's money can go back; a pending, draft or void order has none taken. */
const PAID: ReadonlySet<OrderStatus> = new Set(["paid", "partially_refunded"]);

const publishRefund = (trx: Executor, type: "refund.created" | "refund.updated", row: RefundRow, now: Date) =>
  recordWebhookEvent(trx, { organizationId: row.organization_id, type, data: toRefund(row), now });

/**
 * The anchor's checks, in its order, on the order locked for the refund: visible, not refunded
 * already, no benefit revocation on a subscription's order, not more than refundable, money taken.
 * Returns the locked order and the payment whose charge gives the money back.
 */
async function lockRefundable(trx: Executor, input: RefundCreate, allowed: OrganizationScope) {
  const order = await findOrderForUpdate(trx, input.order_id, { allowed });
  if (!order) throw orderNotFound(input.order_id);
  if (order.status === "refunded") throw new RefundedAlready(order.id);
  if (input.revoke_benefits && order.subscription_id !== null) throw new RevokeSubscriptionBenefitsProhibited();
  if (input.amount > refundableAmount(order)) throw amountAboveRefundable(input.amount);
  const payment = PAID.has(order.status) ? await succeededPayment(trx, order.id) : undefined;
  if (!payment?.processor_reference) throw new RefundUnknownPayment(order.id);
  return { order, payment: { id: payment.id, chargeReference: payment.processor_reference } };
}

/** What a succeeded refund changes beyond its row: the order's totals and status, its webhooks, the grants, the receipt. */
async function applyToOrder(trx: Executor, order: OrderRow, refund: RefundRow, now: Date): Promise<void> {
  const refunded = order.refunded_amount + refund.amount;
  const updated = await updateOrder(trx, order.id, {
    refunded_amount: refunded,
    refunded_tax_amount: order.refunded_tax_amount + refund.tax_amount,
    status: statusAfterRefund(order, refunded),
    modified_at: now,
  });
  const published = await publishOrderUpdated(trx, updated, now);
  await recordWebhookEvent(trx, { organizationId: order.organization_id, type: "order.refunded", data: published, now });
  if (refund.revoke_benefits) await revokeOrderBenefits(trx, order.id, now);
  await rerenderReceipt(trx, updated, now);
  await issueCreditNote(trx, updated, refund, now);
}

export function createRefundService(deps: Deps, processor: PaymentProcessor, documents: OrderDocumentService) {
  const { db } = deps;

  return {
    /**
     * Refunds part or all of an order's payment, in one transaction under the order's row lock:
     * the checks, the refund row (`pending`, `refund.created`), the processor's refund, then either
     * the order's changes (succeeded) or nothing more (failed), and `refund.updated`. A concurrent
     * refund of the same order waits for the lock and then sees what is left.
     */
    async create(input: RefundCreate, allowed: OrganizationScope): Promise<Refund> {
      return db.transaction().execute(async (trx) => {
        const { order, payment } = await lockRefundable(trx, input, allowed);
        const now = deps.now();
        const taxAmount = refundTaxShare(order, input.amount);
        const pending = await insertRefund(trx, {
          created_at: now,
          modified_at: null,
          organization_id: order.organization_id,
          order_id: order.id,
          subscription_id: order.subscription_id,
          customer_id: order.customer_id,
          payment_id: payment.id,
          status: "pending",
          reason: input.reason,
          amount: input.amount,
          tax_amount: taxAmount,
          currency: order.currency,
          comment: input.comment ?? null,
          revoke_benefits: input.revoke_benefits ?? false,
          metadata: JSON.stringify(input.metadata ?? {}),
          processor_reference: null,
          failure_message: null,
        });
        await publishRefund(trx, "refund.created", pending, now);

        const outcome = await processor.refund({
          refundId: pending.id,
          chargeReference: payment.chargeReference,
          amount: input.amount + taxAmount,
          currency: order.currency,
        });
        const settled = await updateRefund(
          trx,
          pending.id,
          outcome.status === "succeeded"
            ? { status: "succeeded", processor_reference: outcome.reference, modified_at: now }
            : { status: "failed", failure_message: outcome.message, modified_at: now },
        );
        if (settled.status === "succeeded") await applyToOrder(trx, order, settled, now);
        await publishRefund(trx, "refund.updated", settled, now);
        return toRefund(settled);
      });
    },

    /** The credit note of a refund the caller may see (docs/decisions.md, "Credit notes"); null while it renders. */
    async creditNote(id: string, allowed: OrganizationScope): Promise<DocumentLink | null> {
      const refund = await findRefund(db, id, allowed);
      if (!refund) throw new ResourceNotFound();
      return documents.creditNote(refund.id);
    },

    list(query: RefundListQuery, allowed: OrganizationScope): Promise<Page<Refund>> {
      const filter = {
        allowed,
        ids: asList(query.id),
        organizationIds: asList(query.organization_id),
        orderIds: asList(query.order_id),
        subscriptionIds: asList(query.subscription_id),
        customerIds: asList(query.customer_id),
        externalCustomerIds: asList(query.external_customer_id),
        succeeded: query.succeeded,
      };
      return paginate(
        query,
        () => countRefunds(deps.readDb, filter),
        async (offset, limit) => (await listRefunds(deps.readDb, filter, parseSorting(query.sorting), { offset, limit })).map(toRefund),
      );
    },
  };
}
export type RefundService = ReturnType<typeof createRefundService>;
