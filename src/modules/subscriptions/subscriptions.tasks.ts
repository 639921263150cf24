import type { Task } from "graphile-worker";
import type { PaymentTrigger } from "../payments/payments.table.ts";

const isCollectPayload = (value: unknown): value is { orderId: string; trigger?: PaymentTrigger } =>
  typeof value === "object" && value !== null && typeof (value as { orderId?: unknown }).orderId === "string";

/** The renewal flows, handed in by the composition root (features never import flows). */
export interface SubscriptionRenewals {
  sweep(): Promise<unknown>;
  collect(orderId: string, trigger: PaymentTrigger): Promise<unknown>;
}

/** The minute sweep: renewals due and dunning retries due, across every organization. */
export const sweepSubscriptionsTask =
  (renewals: SubscriptionRenewals): Task =>
  async () => {
    await renewals.sweep();
  };

/** Recovery: charges a subscription order whose inline charge never settled. Idempotent. */
export const collectSubscriptionOrderTask =
  (renewals: SubscriptionRenewals): Task =>
  async (payload) => {
    if (isCollectPayload(payload)) await renewals.collect(payload.orderId, payload.trigger ?? "subscription_cycle");
  };
