import type { Task } from "graphile-worker";
import type { MeterCreditPayload } from "../../jobs/meter-credits.ts";
import type { CustomerMeterService } from "./customer-meters.service.ts";

const isMeterCreditPayload = (payload: unknown): payload is MeterCreditPayload =>
  typeof payload === "object" &&
  payload !== null &&
  "grant_id" in payload &&
  typeof payload.grant_id === "string" &&
  "cycle" in payload &&
  typeof payload.cycle === "boolean" &&
  "at" in payload &&
  typeof payload.at === "string";

/** Applies a `meter_credit` grant's credit (on purchase) or its cycle's reset and credit (on renewal). */
export const meterCreditTask =
  (customerMeters: CustomerMeterService): Task =>
  async (payload) => {
    if (isMeterCreditPayload(payload)) await customerMeters.applyCredit(payload);
  };
