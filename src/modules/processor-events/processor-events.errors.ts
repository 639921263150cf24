import { AppError, BadRequest } from "../../http/errors.ts";

export const missingSignature = (): BadRequest => new BadRequest("Missing Stripe-Signature header.");

export const notJson = (): BadRequest => new BadRequest("Content-Type must be application/json.");

export const invalidPayload = (): BadRequest => new BadRequest("Invalid payload.");

/** The signature does not match the body, or is older than the tolerance: the hosted service's 401. */
export class InvalidWebhookSignature extends AppError {
  constructor() {
    super(401, "InvalidWebhookSignature", "Invalid signature.");
  }
}

/**
 * The event concerns a row whose transaction has not committed yet (Stripe may call before the
 * request that caused the event has answered): the job fails and graphile-worker retries it later.
 */
export class ProcessorEventTooEarly extends Error {
  constructor(what: string) {
    super(`${what} is not committed yet; the event is retried`);
    this.name = "ProcessorEventTooEarly";
  }
}
