import { AppError } from "../../http/errors.ts";

/** A token that opens no request: unknown, expired, used or replaced; one answer for all. */
export class CustomerEmailUpdateInvalidOrExpired extends AppError {
  constructor() {
    super(401, "CustomerEmailUpdateInvalidOrExpired", "This email update request is invalid or has expired.");
  }
}
