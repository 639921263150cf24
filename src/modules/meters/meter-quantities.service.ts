import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import type { MeterQuantitiesQuery, TimeInterval } from "./meter-inputs.schemas.ts";
import { meterQuantities } from "./meter-quantities.repository.ts";
import { customerKeysOf, findMeter, knownTimeZones } from "./meters.repository.ts";
import type { MeterQuantities } from "./meters.schemas.ts";

const DAY_MS = 86_400_000;
/** The longest range per interval, in days, as the hosted service bounds it (at most a few thousand points). */
const MAX_DAYS: Record<TimeInterval, number> = { hour: 7, day: 366, week: 371, month: 1460, year: 3650 };
const EARLIEST = Date.UTC(2023, 0, 1);
const RANGE_TOO_LARGE = "The interval is too small for the given date range. Use a larger interval or reduce the date range.";

/** The range's issues: a start before 2023, an end before the start, more intervals than allowed. */
function rangeIssues(query: MeterQuantitiesQuery, start: Date, end: Date) {
  if (start.getTime() < EARLIEST) {
    return [
      fieldIssue(
        ["query", "start_timestamp"],
        "Input should be greater than or equal to 2023-01-01T00:00:00Z",
        query.start_timestamp,
        "greater_than_equal",
      ),
    ];
  }
  const days = (end.getTime() - start.getTime()) / DAY_MS;
  if (days < 0 || days > MAX_DAYS[query.interval]) {
    return [
      fieldIssue(
        ["query"],
        RANGE_TOO_LARGE,
        { start_timestamp: query.start_timestamp, end_timestamp: query.end_timestamp, interval: query.interval },
        "value_error",
      ),
    ];
  }
  return [];
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
