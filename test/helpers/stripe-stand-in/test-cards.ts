/** How one of Stripe's test payment methods behaves (Stripe's testing documentation). */
export interface TestCard {
  brand: string;
  last4: string;
  /** Every charge is declined with this decline code (setups too when `declinesSetup`). */
  decline?: { code: string; declineCode: string; message: string; declinesSetup: boolean };
  /** On-session payments and setups need 3-D Secure; off-session charges need it too when `offSession`. */
  authentication?: { offSession: boolean };
  /** A dispute follows the charge. */
  disputes?: boolean;
  /** Its refunds stay pending, then fail. */
  refundFails?: boolean;
}

const DECLINED = "Your card was declined.";

export const TEST_CARDS: Record<string, TestCard> = {
  pm_card_visa: { brand: "visa", last4: "4242" },
  pm_card_mastercard: { brand: "mastercard", last4: "4444" },
  pm_card_amex: { brand: "amex", last4: "8431" },
  pm_card_chargeDeclined: {
    brand: "visa",
    last4: "0002",
    decline: { code: "card_declined", declineCode: "generic_decline", message: DECLINED, declinesSetup: true },
  },
  pm_card_chargeDeclinedInsufficientFunds: {
    brand: "visa",
    last4: "9995",
    decline: {
      code: "card_declined",
      declineCode: "insufficient_funds",
      message: "Your card has insufficient funds.",
      declinesSetup: false,
    },
  },
  pm_card_chargeDeclinedExpiredCard: {
    brand: "visa",
    last4: "0069",
    decline: { code: "expired_card", declineCode: "expired_card", message: "Your card has expired.", declinesSetup: true },
  },
  pm_card_chargeDeclinedLostCard: {
    brand: "visa",
    last4: "9987",
    decline: { code: "card_declined", declineCode: "lost_card", message: DECLINED, declinesSetup: true },
  },
  // Attaches and sets up fine; every charge is declined.
  pm_card_chargeCustomerFail: {
    brand: "visa",
    last4: "0341",
    decline: { code: "card_declined", declineCode: "generic_decline", message: DECLINED, declinesSetup: false },
  },
  pm_card_authenticationRequired: { brand: "visa", last4: "3184", authentication: { offSession: true } },
  pm_card_authenticationRequiredOnSetup: { brand: "visa", last4: "3155", authentication: { offSession: false } },
  pm_card_threeDSecure2Required: { brand: "visa", last4: "3220", authentication: { offSession: true } },
  pm_card_createDispute: { brand: "visa", last4: "0259", disputes: true },
  pm_card_refundFail: { brand: "visa", last4: "5126", refundFails: true },
};
