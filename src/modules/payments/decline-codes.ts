/**
 * Decline codes after which retrying the same card is futile: the card is gone, refused for good, or
 * its details are wrong. Stripe's decline codes (https://docs.stripe.com/declines/codes), plus the
 * reasons its fraud screening gives for a blocked charge; the set is the hosted service's
 * `UNRECOVERABLE_DECLINE_CODES` (`server/polar/models/payment.py`; the Stripe notes, §6, name it).
 * Dunning sends a first failure with one of these straight to its deadline instead of retrying.
 */
const UNRECOVERABLE_DECLINE_CODES: ReadonlySet<string> = new Set([
  "blocklist",
  "card_not_supported",
  "do_not_honor",
  "elevated_risk_level",
  "expired_card",
  "fraudulent",
  "highest_risk_level",
  "incorrect_cvc",
  "incorrect_number",
  "invalid_account",
  "invalid_cvc",
  "invalid_expiry_year",
  "invalid_pin",
  "live_mode_test_card",
  "lost_card",
  "merchant_blacklist",
  "not_permitted",
  "pickup_card",
  "previously_declined_do_not_retry",
  "restricted_card",
  "revocation_of_all_authorizations",
  "revocation_of_authorization",
  "rule",
  "security_violation",
  "stolen_card",
  "stop_payment_order",
]);

/** Whether a decline code (Stripe's vocabulary, which the sandbox's test cards share) rules out a retry. */
export const isUnrecoverableDecline = (code: string | null): boolean => code !== null && UNRECOVERABLE_DECLINE_CODES.has(code);
