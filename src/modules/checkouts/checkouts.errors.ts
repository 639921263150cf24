import { AppError } from "../../kit/errors.ts";

/** Updating or confirming a session that is no longer open. */
export class NotOpenCheckout extends AppError {
  constructor() {
    super(403, "NotOpenCheckout", "Checkout is not open.");
  }
}

/** A client-secret route reached a session past its expiry. */
export class ExpiredCheckoutError extends AppError {
  constructor() {
    super(410, "ExpiredCheckoutError", "This checkout session has expired.");
  }
}

/** The payment was refused or failed; the detail is safe to show the buyer. */
export class PaymentError extends AppError {
  constructor(detail: string) {
    super(400, "PaymentError", detail);
  }
}

/** The discount was used up between the buyer seeing it and confirming. */
export class DiscountRedemptionLimitReached extends AppError {
  constructor() {
    super(403, "DiscountRedemptionLimitReached", "This discount has reached its maximum number of redemptions.");
  }
}
