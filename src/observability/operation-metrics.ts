import { Gauge, type Registry } from "prom-client";
import type { Db } from "../db/database.ts";
import { operationCounters } from "./operation-counters.ts";
import { meterAggregationLagSeconds } from "./operations.repository.ts";

/**
 * Adds to `registry` the counters the features and flows keep (emails sent, events ingested,
 * renewals, checkout confirms: operation-counters.ts) and the meters' aggregation lag, read from
 * the database at each scrape (so it covers the worker's aggregation whichever process is scraped).
 */
export function registerOperationMetrics(registry: Registry, db: Db): void {
  for (const counter of operationCounters) registry.registerMetric(counter);
  new Gauge({
    name: "meter_aggregation_lag_seconds",
    help: "How long the oldest ingested event not yet in its meters' aggregates has waited (0: caught up).",
    registers: [registry],
    async collect() {
      this.set(await meterAggregationLagSeconds(db));
    },
  });
}
