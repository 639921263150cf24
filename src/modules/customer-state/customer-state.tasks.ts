import type { Task } from "graphile-worker";
import type { CustomerStateService } from "./customer-state.service.ts";

const isStatePayload = (value: unknown): value is { customerId: string } =>
  typeof value === "object" && value !== null && typeof (value as { customerId?: unknown }).customerId === "string";

/** The debounced `customer.state_changed` of one customer (enqueued by `enqueueCustomerStateChanged`). */
export const customerStateChangedTask =
  (states: CustomerStateService): Task =>
  async (payload) => {
    if (isStatePayload(payload)) await states.publishStateChanged(payload.customerId);
  };
