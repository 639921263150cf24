import { AppError, RequestValidationError, fieldIssue } from "../../http/errors.ts";

// Error names and messages are the hosted service's, word for word: clients match on them.

export class RefundedAlready extends AppError {
  constructor(orderId: string) {
    super(403, "RefundedAlready", `Order is already fully refunded: ${orderId}`);
  }
}

export class RevokeSubscriptionBenefitsProhibited extends AppError {
  constructor() {
    super(400, "RevokeSubscriptionBenefitsProhibited", "Subscription benefits can only be revoked upon cancellation");
  }
}

export class RefundUnknownPayment extends AppError {
  constructor(orderId: string) {
    super(404, "RefundUnknownPayment", `Refund issued for unknown order: ${orderId}`);
  }
}

/** The order is not one the caller may refund (another organization's, or none): a 422 on the field, as the hosted service answers. */
export const orderNotFound = (orderId: string) =>
  new RequestValidationError([fieldIssue(["body", "order_id"], "Order not found", orderId)]);

export const amountAboveRefundable = (amount: number) =>
  new RequestValidationError([fieldIssue(["body", "amount"], "Refund amount exceeds refundable amount", amount)]);
