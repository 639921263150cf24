import type { Task } from "graphile-worker";
import type { BackfillPayload, MeterService } from "./meters.service.ts";

const isBackfillPayload = (payload: unknown): payload is BackfillPayload =>
  typeof payload === "object" &&
  payload !== null &&
  "meter_id" in payload &&
  typeof payload.meter_id === "string" &&
  "generation" in payload &&
  typeof payload.generation === "number";

/** Back-fills a meter created (or redefined) after events of its organization existed. */
export const backfillMeterTask =
  (meters: MeterService): Task =>
  async (payload) => {
    if (isBackfillPayload(payload)) await meters.backfill(payload);
  };
