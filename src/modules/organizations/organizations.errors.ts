import { AppError } from "../../http/errors.ts";

/** A dispute auto-accept threshold needs a feature this service never turns on. */
export class DisputeAutoAcceptNotEnabled extends AppError {
  constructor() {
    super(403, "DisputeAutoAcceptNotEnabled", "Dispute auto-accept is not enabled for this organization.");
  }
}

/** SSO cannot be enforced: this service has no SSO connections. */
export class SSOEnforcementRequiresConnection extends AppError {
  constructor() {
    super(409, "SSOEnforcementRequiresConnection", "Cannot enforce SSO without an enabled connection.");
  }
}
