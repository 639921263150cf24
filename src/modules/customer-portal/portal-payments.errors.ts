import { AppError } from "../../http/errors.ts";

// Error names and messages are the hosted service's, word for word: clients match on them.

export class PaymentMethodSetupFailed extends AppError {
  constructor(reason: string) {
    super(400, "PaymentMethodSetupFailed", `Could not add this payment method: ${reason} Please try again with a different card.`);
  }
}

/** The reference's description of the answer, as its detail (the anchor's own text is not recorded). */
export class CustomerNotReady extends AppError {
  constructor() {
    super(403, "CustomerNotReady", "Customer is not ready to confirm a payment method.");
  }
}

export class PaymentMethodInUseByActiveSubscription extends AppError {
  constructor() {
    super(
      400,
      "PaymentMethodInUseByActiveSubscription",
      "This payment method is still needed to bill a subscription. Add another one or cancel the subscription first.",
    );
  }
}

export class OrderNotEligibleForRetry extends AppError {
  constructor(orderId: string) {
    super(422, "OrderNotEligibleForRetry", `Order ${orderId} is not eligible for payment retry.`);
  }
}

export class PaymentAlreadyInProgress extends AppError {
  constructor(orderId: string) {
    super(409, "PaymentAlreadyInProgress", `Payment for order ${orderId} is already in progress`);
  }
}

export class ManualRetryLimitExceeded extends AppError {
  constructor(orderId: string) {
    super(429, "ManualRetryLimitExceeded", `Maximum number of manual payment retry attempts has been reached for order ${orderId}.`);
  }
}

export class PaymentRetryValidationError extends AppError {
  constructor(detail: string) {
    super(422, "PaymentRetryValidationError", detail);
  }
}
