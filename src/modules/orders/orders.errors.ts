import { AppError } from "../../http/errors.ts";

// Error names and messages are the hosted service's, word for word: clients match on them.

export class OrderNotEligibleForInvoice extends AppError {
  constructor(orderId: string, status: string) {
    super(409, "OrderNotEligibleForInvoice", `Order ${orderId} is not eligible for invoice generation (current status: ${status}).`);
  }
}

export class MissingInvoiceBillingDetails extends AppError {
  constructor() {
    super(422, "MissingInvoiceBillingDetails", "Billing name and address are required to generate an invoice for this order.");
  }
}

export class InvoiceDoesNotExist extends AppError {
  constructor(orderId: string) {
    super(404, "InvoiceDoesNotExist", `No invoice exists for order ${orderId}.`);
  }
}

export class ReceiptNotAllocated extends AppError {
  constructor(orderId: string) {
    super(404, "ReceiptNotAllocated", `No receipt allocated for order ${orderId}.`);
  }
}

/** Our deliberate difference from the hosted service: an invoice, once requested, freezes the billing details. */
export class OrderInvoiceAlreadyRequested extends AppError {
  constructor(orderId: string) {
    super(
      409,
      "OrderInvoiceAlreadyRequested",
      `The invoice of order ${orderId} has been generated or requested; its billing details can no longer change.`,
    );
  }
}

/** Ours: a refund has a credit note only when its order's invoice exists and the money went back. */
export class CreditNoteDoesNotExist extends AppError {
  constructor(refundId: string) {
    super(404, "CreditNoteDoesNotExist", `No credit note exists for refund ${refundId}.`);
  }
}

export class OrderNotDraft extends AppError {
  constructor(orderId: string) {
    super(412, "OrderNotDraft", `Order ${orderId} is not a draft.`);
  }
}

export class OffSessionChargesNotEnabled extends AppError {
  constructor(organizationId: string) {
    super(
      403,
      "OffSessionChargesNotEnabled",
      `Off-session charges are not enabled for this organization (${organizationId}). Contact Polar support to opt in.`,
    );
  }
}

export class PaymentActionRequired extends AppError {
  constructor() {
    super(402, "PaymentActionRequired", "The payment requires customer authentication that can't be completed off-session.");
  }
}

/** The organization's review status does not let it take payments (denied, blocked, offboarded…). */
export class OrganizationNotReadyForPayments extends AppError {
  constructor(organizationId: string) {
    super(403, "OrganizationNotReadyForPayments", `This organization (${organizationId}) is not ready to accept payments.`);
  }
}
