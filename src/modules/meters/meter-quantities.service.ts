import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { EARLIEST_DATE, intervalRangeIssue } from "../../schema/time-intervals.ts";
import type { MeterQuantitiesQuery } from "./meter-inputs.schemas.ts";
import { meterQuantities } from "./meter-quantities.repository.ts";
import { knownTimeZones } from "../../db/time-zones.ts";
import { customerKeysOf, findMeter } from "./meters.repository.ts";
import type { MeterQuantities } from "./meters.schemas.ts";

const EARLIEST = new Date(`${EARLIEST_DATE}T00:00:00Z`).getTime();

/** The range's issues: a start before 2023, an end before the start, more intervals than allowed. */
function rangeIssues(query: MeterQuantitiesQuery, start: Date, end: Date) {
  if (start.getTime() < EARLIEST) {
    return [
      fieldIssue(
        ["query", "start_timestamp"],
        `Input should be greater than or equal to ${EARLIEST_DATE}T00:00:00Z`,
        query.start_timestamp,
        "greater_than_equal",
      ),
    ];
  }
  const { start_timestamp, end_timestamp, interval } = query;
  const issue = intervalRangeIssue(start, end, interval, { start_timestamp, end_timestamp, interval });
  return issue ? [issue] : [];
}

export function createMeterQuantityService(deps: Deps) {
  const { db } = deps;
  return {
    /**
     * Quantities from the pre-aggregates and the raw events no bucket holds yet, in one statement
     * that reads which those are itself (`unaggregatedEvents`).
     */
    async quantities(id: string, query: MeterQuantitiesQuery, allowed: OrganizationScope): Promise<MeterQuantities> {
      const meter = await findMeter(db, id, allowed);
      if (!meter) throw new ResourceNotFound();
      const start = new Date(query.start_timestamp);
      const end = new Date(query.end_timestamp);
      const timezone = query.timezone ?? "UTC";
      const issues = rangeIssues(query, start, end);
      if (!(await knownTimeZones(db)).has(timezone)) {
        issues.push(fieldIssue(["query", "timezone"], "Input should be a valid IANA time zone name", timezone, "enum"));
      }
      if (issues.length > 0) throw new RequestValidationError(issues);
      const customerIds = query.customer_id ?? [];
      const externalIds = query.external_customer_id ?? [];
      const customerKeys =
        customerIds.length + externalIds.length === 0 ? null : await customerKeysOf(db, meter.organization_id, customerIds, externalIds);
      const rows = await meterQuantities(db, {
        meter,
        start,
        end,
        interval: query.interval,
        timezone,
        customerKeys,
        metadata: query.metadata && Object.keys(query.metadata).length > 0 ? query.metadata : null,
        customerFunction: query.customer_aggregation_function ?? null,
      });
      return {
        quantities: rows.map((row) => ({ timestamp: row.timestamp.toISOString(), quantity: row.quantity })),
        total: rows[0]?.total ?? 0,
      };
    },
  };
}
export type MeterQuantityService = ReturnType<typeof createMeterQuantityService>;
