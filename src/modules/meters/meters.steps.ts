/**
 * What this module offers other modules and the flows: operations run on the caller's executor,
 * inside its transaction, and the rules they share. Other modules import this file, never the
 * module's repositories or services (docs/architecture.md, "Who may import whom").
 */
export { lockIngestShared } from "./meter-ingest-locks.repository.ts";
export { consumedUnits } from "./meter-consumption.repository.ts";
export { compileFilter, meterEventCondition } from "./meter-filter.repository.ts";
export { parseFilterText } from "./meter-filter.ts";
export { customerCredits, customerUsage } from "./meter-usage.ts";
export { customerKeysOf, findMeter, meterExists, metersByIds, selectMeters } from "./meters.repository.ts";
