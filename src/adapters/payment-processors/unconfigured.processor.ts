import type {
  ChargeOutcome,
  DisputeCloseOutcome,
  MethodSetupLookup,
  MethodSetupOutcome,
  OffSessionChargeOutcome,
  PaymentProcessor,
  RefundOutcome,
} from "./payment-processor.ts";

const MESSAGE = "No payment processor is configured for this production deployment.";

/**
 * The processor of a `production` deployment until a real adapter (Stripe) is wired in
 * `services.ts`: the sandbox's test tokens must never settle real orders, so every charge fails
 * with a message saying why, and nothing is recorded as paid.
 */
export const unconfiguredProcessor: PaymentProcessor = {
  async charge(): Promise<ChargeOutcome> {
    return { status: "failed", message: MESSAGE };
  },
  async lookupCharge(): Promise<ChargeOutcome> {
    return { status: "failed", message: MESSAGE };
  },
  async chargeOffSession(): Promise<OffSessionChargeOutcome> {
    return { status: "failed", message: MESSAGE, declineCode: null, methodUnusable: false };
  },
  async chargeOnSession(): Promise<ChargeOutcome> {
    return { status: "failed", message: MESSAGE };
  },
  async cancelCharge(): Promise<ChargeOutcome> {
    return { status: "failed", message: MESSAGE };
  },
  async setupMethod(): Promise<MethodSetupOutcome> {
    return { status: "failed", message: MESSAGE };
  },
  // It never left a setup waiting.
  async lookupSetup(): Promise<MethodSetupLookup> {
    return { status: "unknown" };
  },
  async refund(): Promise<RefundOutcome> {
    return { status: "failed", message: MESSAGE };
  },
  async closeDispute(): Promise<DisputeCloseOutcome> {
    return { status: "failed", message: MESSAGE };
  },
  // It never saved a method.
  async detachMethod(): Promise<void> {},
};
