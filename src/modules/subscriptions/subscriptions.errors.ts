import { AppError } from "../../http/errors.ts";

// Error names and messages are the hosted service's, word for word: clients match on them.

export class AlreadyCanceledSubscription extends AppError {
  constructor() {
    super(403, "AlreadyCanceledSubscription", "This subscription is already canceled or will be at the end of the period.");
  }
}

export class InactiveSubscription extends AppError {
  constructor(subscriptionId: string) {
    super(403, "InactiveSubscription", `Subscription ${subscriptionId} is not active.`);
  }
}

/** Uncancelling a subscription that has already ended. */
export class ResourceUnavailable extends AppError {
  constructor() {
    super(410, "ResourceUnavailable", "Unavailable");
  }
}

export class CannotPauseSubscription extends AppError {
  constructor() {
    super(409, "CannotPauseSubscription", "This subscription cannot be paused.");
  }
}

export class NoScheduledPause extends AppError {
  constructor() {
    super(409, "NoScheduledPause", "This subscription has no scheduled pause.");
  }
}

export class NotPausedSubscription extends AppError {
  constructor() {
    super(409, "NotPausedSubscription", "This subscription is not paused.");
  }
}

export class NotASeatBasedSubscription extends AppError {
  constructor() {
    super(400, "NotASeatBasedSubscription", "This subscription does not support seat-based pricing.");
  }
}

export class BelowMinimumSeats extends AppError {
  constructor(minimum: number) {
    super(400, "BelowMinimumSeats", `Minimum ${minimum} seats required.`);
  }
}

export class AboveMaximumSeats extends AppError {
  constructor(maximum: number) {
    super(400, "AboveMaximumSeats", `Maximum ${maximum} seats allowed.`);
  }
}

/** A change that charges at once (`invoice`, `reset`, an interval change) and whose charge failed: nothing is kept. */
export class PaymentFailed extends AppError {
  constructor(reason: string) {
    super(402, "PaymentFailed", `Payment failed with reason: ${reason}.`);
  }
}
