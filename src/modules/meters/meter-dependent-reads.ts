import { boundOnce } from "../../values/bound-once.ts";
import type { Expression, RawBuilder } from "kysely";
import type { Executor } from "../../db/database.ts";

/**
 * What meters read and write of the modules built on them (events, customer-meters), as parts of
 * meters' own statements, so each aggregation and each read stays one statement. Those modules
 * import meters, so meters cannot import their steps: it declares what it needs here, and the
 * composition root (services.ts) binds their steps once for the process, before any meter is read.
 */
export interface MeterDependentReads {
  /**
   * The events, as a FROM item a statement scans under its own alias with a meter's filter (the
   * aggregation, the back-fill, the raw reads of quantities and consumption); the filter names
   * event columns, which the meter's grammar is about.
   */
  eventRows: RawBuilder<unknown>;
  /** The ingest instant of the organization's event `offset` events into [`from`, `until`), a scalar subquery (null when fewer). */
  ingestedAtAfter: (organizationId: string, from: Date, until: Date, offset: number) => RawBuilder<Date | null>;
  /** One row when the caller's organization has an event ingested at or after the caller's instant, none else (a LATERAL source). */
  eventIngestedSince: (organizationId: Expression<string>, since: Expression<Date>) => RawBuilder<unknown>;
  /** Whether the organization has stored any event before `cut`. */
  organizationHasEventsBefore: (db: Executor, organizationId: string, cut: Date) => Promise<boolean>;
  /** The insert that activates the customer meters of `rows` (organization, customer, meter, created at), skipping existing ones. */
  activateCustomerMeters: (rows: RawBuilder<unknown>) => RawBuilder<unknown>;
  /** A customer's credits of a meter and the instant its window opened, locked `FOR SHARE`; none without a customer meter. */
  customerMeterCreditsForShare: (
    db: Executor,
    customerId: string,
    meterId: string,
  ) => Promise<{ credited_units: number; reset_at: Date | null } | undefined>;
}

const reads = boundOnce<MeterDependentReads>("meters");

/** Called once, by the composition root. */
export const bindMeterDependentReads = reads.bind;

/** The bound reads. */
export const meterDependentReads = reads.get;
