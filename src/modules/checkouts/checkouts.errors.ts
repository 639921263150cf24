import { AppError } from "../../http/errors.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

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

/** A client-secret route may read a session until it expires, whatever its status. */
export function assertNotExpired(row: Pick<CheckoutRow, "status" | "expires_at">, now: Date): void {
  if (row.status === "expired" || row.expires_at < now) throw new ExpiredCheckoutError();
}

/** The buyer may edit or confirm only an open session that has not expired. */
export function assertOpenForBuyer(row: Pick<CheckoutRow, "status" | "expires_at">, now: Date): void {
  assertNotExpired(row, now);
  if (row.status !== "open") throw new NotOpenCheckout();
}
