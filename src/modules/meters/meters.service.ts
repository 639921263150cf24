import type { Deps } from "../../context.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import type { Executor } from "../../db/database.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import {
  aggregateIngestedEvents,
  aggregationStepEnd,
  backfillMeter,
  meterHasBuckets,
  meterHasEventsIngested,
  organizationsWithUnaggregatedEvents,
} from "./meter-aggregates.repository.ts";
import { cutInstant, lockIngestExclusive } from "./meter-ingest-locks.repository.ts";
import { filterIssues, normalizeAggregation } from "./meter-filter.ts";
import type { MeterCreate, MeterListQuery, MeterUpdate } from "./meter-inputs.schemas.ts";
import * as repo from "./meters.repository.ts";
import { meterDependentReads } from "./meter-dependent-reads.ts";
import { toMeter, toMeterSpec } from "./meters.mapper.ts";
import type { Meter, MeterAggregation, MeterFilter, MeterUnit } from "./meters.schemas.ts";
import type { MeterRow } from "./meters.table.ts";

export interface BackfillPayload {
  meter_id: string;
  generation: number;
}

/** About how many events one aggregation transaction adds (docs/decisions.md, "Meters: aggregated after ingest"). */
const AGGREGATION_STEP_EVENTS = 100_000;

const FROZEN = "This field can't be updated because the meter is already aggregating events.";

/** Equal JSON values, whatever the order of their keys (jsonb stores keys in its own order). */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => [k, canonical(v)]),
        )
      : value;
const sameJson = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** The filter's and aggregation's issues, and the aggregation as stored. */
function checkDefinition(filter: MeterFilter | null | undefined, aggregation: MeterCreate["aggregation"] | null | undefined) {
  const issues: ValidationIssue[] = filter ? filterIssues(filter, ["body", "filter"]) : [];
  let normalized: MeterAggregation | null = null;
  if (aggregation) {
    const result = normalizeAggregation(aggregation, ["body", "aggregation"]);
    if ("issues" in result) issues.push(...result.issues);
    else normalized = result.aggregation;
  }
  return { issues, aggregation: normalized };
}

/** The unit's label and multiplier as stored: a custom unit needs its label, and multiplies by 1 unless told. */
function unitFields(unit: MeterUnit, label: string | null | undefined, multiplier: number | null | undefined, issues: ValidationIssue[]) {
  if (unit !== "custom") return { unit, custom_label: null, custom_multiplier: null };
  if (!label)
    issues.push(fieldIssue(["body", "custom_label"], "custom_label is required when unit is 'custom'.", label ?? null, "missing"));
  return { unit, custom_label: label ?? null, custom_multiplier: multiplier ?? 1 };
}

/**
 * A new definition (creation, or a new filter or aggregation) in the transaction: the exclusive
 * lock against ingest, the cut, and the back-fill of the events before it, when there are any; the
 * events after it are the aggregation's.
 */
async function startDefinition(trx: Executor, organizationId: string) {
  await lockIngestExclusive(trx, organizationId);
  const cut = await cutInstant(trx);
  const pending = await meterDependentReads().organizationHasEventsBefore(trx, organizationId, cut);
  return { backfill_cut: cut, backfilled_at: pending ? null : cut, aggregated_until: cut, pending };
}

const enqueueBackfill = (trx: Executor, row: MeterRow) =>
  enqueueJob(trx, TaskName.meterBackfill, { meter_id: row.id, generation: row.generation } satisfies BackfillPayload, {
    jobKey: `meter-backfill:${row.id}`,
  });

/**
 * Whether events already count for the meter: its filter and aggregation are then frozen (as the
 * hosted service). They count once in its buckets, and before: ingested before the cut of a pending
 * back-fill, or since its last aggregation.
 */
async function aggregating(trx: Executor, row: MeterRow): Promise<boolean> {
  if (await meterHasBuckets(trx, row.id)) return true;
  const spec = toMeterSpec(row);
  if (row.backfilled_at === null && (await meterHasEventsIngested(trx, spec, null, row.backfill_cut))) return true;
  return meterHasEventsIngested(trx, spec, row.aggregated_until, null);
}

/**
 * Adds the organization's events ingested since its meters' `aggregated_until` to their buckets,
 * up to a cut taken now, and moves `aggregated_until` on in the same transaction: a read (one
 * snapshot) sees each event either in the buckets or raw, never both, never neither. A backlog
 * (a worker stopped for a while) goes in steps of about `AGGREGATION_STEP_EVENTS`, each its own
 * transaction, so none grows with the backlog.
 */
async function aggregateIngested(deps: Deps, organizationId: string, stepEvents: number): Promise<void> {
  // The cut in a transaction of its own: ingest waits for the lock, not for the aggregation.
  const cut = await deps.db.transaction().execute(async (trx) => {
    await lockIngestExclusive(trx, organizationId);
    return cutInstant(trx);
  });
  for (let caughtUp = false; !caughtUp;) {
    caughtUp = await deps.db.transaction().execute((trx) => aggregateStep(deps, trx, organizationId, cut, stepEvents));
  }
}

/** One step of `aggregateIngested`, in its transaction: true once every meter has reached the cut. */
async function aggregateStep(deps: Deps, trx: Executor, organizationId: string, cut: Date, stepEvents: number): Promise<boolean> {
  const behind = (await repo.findMetersOfOrganizationForUpdate(trx, organizationId)).filter((meter) => meter.aggregated_until < cut);
  if (behind.length === 0) return true;
  const from = new Date(Math.min(...behind.map((meter) => meter.aggregated_until.getTime())));
  const until = await aggregationStepEnd(trx, organizationId, from, cut, stepEvents);
  // Meters share their `aggregated_until` but after a creation or a new definition: one scan per instant.
  const byStart = new Map<number, MeterRow[]>();
  for (const meter of behind.filter((row) => row.aggregated_until < until)) {
    const start = meter.aggregated_until.getTime();
    byStart.set(start, [...(byStart.get(start) ?? []), meter]);
  }
  for (const [start, meters] of byStart)
    await aggregateIngestedEvents(trx, organizationId, meters.map(toMeterSpec), new Date(start), until, deps.now());
  await repo.markMetersAggregated(
    trx,
    [...byStart.values()].flat().map((meter) => meter.id),
    until,
  );
  return false;
}

async function createMeter(deps: Deps, principal: Principal, input: MeterCreate): Promise<Meter> {
  const { issues, aggregation } = checkDefinition(input.filter, input.aggregation);
  const unit = unitFields(input.unit ?? "scalar", input.custom_label, input.custom_multiplier, issues);
  if (issues.length > 0) throw new RequestValidationError(issues);
  const organization = await targetOrganization(deps.db, principal, input.organization_id);
  const row = await deps.db.transaction().execute(async (trx) => {
    const { pending, ...definition } = await startDefinition(trx, organization.id);
    const inserted = await repo.insertMeter(trx, {
      organization_id: organization.id,
      created_at: deps.now(),
      modified_at: null,
      name: input.name,
      ...unit,
      filter: JSON.stringify(input.filter),
      aggregation: JSON.stringify(aggregation),
      metadata: JSON.stringify(input.metadata ?? {}),
      archived_at: null,
      ...definition,
    });
    if (pending) await enqueueBackfill(trx, inserted);
    return inserted;
  });
  return toMeter(row);
}

async function getMeter(deps: Deps, id: string, allowed: OrganizationScope): Promise<Meter> {
  const row = await repo.findMeter(deps.db, id, allowed);
  if (!row) throw new ResourceNotFound();
  return toMeter(row);
}

function listMeters(deps: Deps, query: MeterListQuery, allowed: OrganizationScope): Promise<Page<Meter>> {
  const filters = {
    organizationIds: query.organization_id ?? null,
    query: query.query,
    archived: query.is_archived,
    metadata: query.metadata,
  };
  const sorting = parseSorting(query.sorting);
  return paginate(
    query,
    () => repo.countMeters(deps.readDb, allowed, filters),
    async (offset, limit) => (await repo.listMeters(deps.readDb, allowed, filters, sorting, offset, limit)).map(toMeter),
  );
}

/** The unit fields an update sets (none when it names no unit field), each falling back to the meter's. */
function unitUpdate(input: MeterUpdate, current: MeterRow) {
  const unitGiven = input.unit != null || input.custom_label !== undefined || input.custom_multiplier !== undefined;
  if (!unitGiven) return {};
  const unitIssues: ValidationIssue[] = [];
  const unit = unitFields(
    input.unit ?? current.unit,
    input.custom_label === undefined ? current.custom_label : input.custom_label,
    input.custom_multiplier === undefined ? current.custom_multiplier : input.custom_multiplier,
    unitIssues,
  );
  if (unitIssues.length > 0) throw new RequestValidationError(unitIssues);
  return unit;
}

/**
 * The new definition's columns when the update changes the filter or the aggregation (refused once
 * events count for the meter), with whether a back-fill is pending; null when it changes neither.
 */
async function redefinition(trx: Executor, current: MeterRow, input: MeterUpdate, aggregation: MeterAggregation | null) {
  const redefined =
    (input.filter != null && !sameJson(input.filter, current.filter)) ||
    (aggregation !== null && !sameJson(aggregation, current.aggregation));
  if (!redefined) return null;
  if (await aggregating(trx, current)) {
    const field = input.filter != null ? "filter" : "aggregation";
    throw new RequestValidationError([fieldIssue(["body", field], FROZEN, input[field], "forbidden")]);
  }
  const { pending, ...definition } = await startDefinition(trx, current.organization_id);
  return { pending, columns: { ...definition, generation: current.generation + 1 } };
}

/** A new filter or aggregation is refused once events count for the meter; archiving keeps its numbers. */
async function updateMeter(deps: Deps, id: string, input: MeterUpdate, allowed: OrganizationScope): Promise<Meter> {
  const { issues, aggregation } = checkDefinition(input.filter, input.aggregation);
  if (issues.length > 0) throw new RequestValidationError(issues);
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await repo.findMeterForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const unit = unitUpdate(input, current);
    const redefined = await redefinition(trx, current, input, aggregation);
    const archived = input.is_archived == null ? {} : { archived_at: input.is_archived ? (current.archived_at ?? deps.now()) : null };
    const updated = await repo.updateMeter(trx, current.id, {
      modified_at: deps.now(),
      ...(input.name != null ? { name: input.name } : {}),
      ...unit,
      ...(input.filter != null ? { filter: JSON.stringify(input.filter) } : {}),
      ...(aggregation !== null ? { aggregation: JSON.stringify(aggregation) } : {}),
      ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
      ...archived,
      ...(redefined?.columns ?? {}),
    });
    if (redefined?.pending) await enqueueBackfill(trx, updated);
    return updated;
  });
  return toMeter(row);
}

/** Every organization's events ingested since its last aggregation, added to its meters' buckets (the `meters:aggregate` job). */
async function aggregateAllIngested(deps: Deps, stepEvents: number): Promise<void> {
  for (const organizationId of await organizationsWithUnaggregatedEvents(deps.db))
    await aggregateIngested(deps, organizationId, stepEvents);
}

/**
 * The back-fill of a meter's generation: the events ingested before its cut, added to its buckets
 * and marked done in one transaction, so a retried job never adds twice; a stale generation does nothing.
 */
async function backfill(deps: Deps, payload: BackfillPayload): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await repo.findMeterForUpdate(trx, payload.meter_id, null);
    if (!row || row.generation !== payload.generation || row.backfilled_at !== null) return;
    const now = deps.now();
    await backfillMeter(trx, toMeterSpec(row), row.backfill_cut, now);
    await repo.updateMeter(trx, row.id, { backfilled_at: now });
  });
}

/** The meters' operations, bound to the service's dependencies. */
export function createMeterService(deps: Deps) {
  return {
    create: (principal: Principal, input: MeterCreate) => createMeter(deps, principal, input),
    get: (id: string, allowed: OrganizationScope) => getMeter(deps, id, allowed),
    list: (query: MeterListQuery, allowed: OrganizationScope) => listMeters(deps, query, allowed),
    update: (id: string, input: MeterUpdate, allowed: OrganizationScope) => updateMeter(deps, id, input, allowed),
    aggregateAllIngested: (stepEvents = AGGREGATION_STEP_EVENTS) => aggregateAllIngested(deps, stepEvents),
    backfill: (payload: BackfillPayload) => backfill(deps, payload),
  };
}
export type MeterService = ReturnType<typeof createMeterService>;
