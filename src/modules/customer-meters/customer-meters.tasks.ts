import type { Task } from "graphile-worker";
import { MeterCreditKinds, type MeterCreditKind, type MeterCreditPayload } from "../../contracts/meter-credits.ts";
import type { CustomerMeterService } from "./customer-meters.service.ts";

const isMeterCreditPayload = (payload: unknown): payload is MeterCreditPayload =>
  typeof payload === "object" &&
  payload !== null &&
  "grant_id" in payload &&
  typeof payload.grant_id === "string" &&
  "kind" in payload &&
  MeterCreditKinds.includes(payload.kind as MeterCreditKind) &&
  "at" in payload &&
  typeof payload.at === "string";

/** Applies a `meter_credit` grant's credit (on purchase), its cycle's reset and credit (on renewal), or takes it back (revoked). */
export const meterCreditTask =
  (customerMeters: CustomerMeterService): Task =>
  async (payload) => {
    if (isMeterCreditPayload(payload)) await customerMeters.applyCredit(payload);
  };
