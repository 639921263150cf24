import { AppError } from "../../http/errors.ts";

/** A code (or link) that opens nothing: unknown, expired, used, or voided by wrong tries; one answer for all. */
export class CustomerSessionCodeInvalidOrExpired extends AppError {
  constructor() {
    super(401, "CustomerSessionCodeInvalidOrExpired", "This customer session code is invalid or has expired.");
  }
}

/** Several customers of the organization have the email: the caller names one (`customer_id`). */
export class CustomerSelectionRequired extends AppError {
  readonly customers: readonly { id: string; name: string | null }[];

  constructor(customers: readonly { id: string; name: string | null }[]) {
    super(409, "customer_selection_required", "Multiple customers found for this email. Please select one.");
    this.customers = customers;
  }

  override body(): Record<string, unknown> {
    return { ...super.body(), customers: this.customers };
  }
}
