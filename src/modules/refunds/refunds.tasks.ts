import type { Task } from "graphile-worker";

const isRefundPayload = (value: unknown): value is { refundId: string } =>
  typeof value === "object" && value !== null && typeof (value as { refundId?: unknown }).refundId === "string";

/** Recovery: asks the processor again about a refund whose request died before its answer was settled (the flow, handed in). */
export const settleRefundTask =
  (recover: (refundId: string) => Promise<void>): Task =>
  async (payload) => {
    if (isRefundPayload(payload)) await recover(payload.refundId);
  };
