import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueCustomerStateChanged } from "../../contracts/customer-state-changes.ts";
import type { MeterCreditPayload } from "../../contracts/meter-credits.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { pageWindow, paginate, parseSorting, toPage, type Page } from "../../schema/pagination.ts";
import { customersByIds } from "../customers/customers.steps.ts";
import { consumedUnits } from "../meters/meters.steps.ts";
import { customerKeysOf, findMeter, metersByIds } from "../meters/meters.steps.ts";
import { grantWithTermsForUpdate, updateGrantProperties } from "../benefits/benefits.steps.ts";
import { toCustomerCustomerMeter, toCustomerMeter, toCustomerMeterUnits, type CustomerMeterUnits } from "./customer-meters.mapper.ts";
import * as repo from "./customer-meters.repository.ts";
import type {
  CustomerCustomerMeter,
  CustomerMeter,
  CustomerMeterListQuery,
  CustomerMeterSortKey,
  PortalCustomerMeterListQuery,
} from "./customer-meters.schemas.ts";
import type { CustomerMeterRow } from "./customer-meters.table.ts";
import type { MeterRow } from "../meters/meters.table.ts";

/** The terms of a `meter_credit` benefit, as stored. */
interface MeterCreditTerms {
  units: number;
  rollover: boolean;
  meter_id: string;
}

/**
 * The rows with their consumed units, each read from its meter's buckets since the row's window
 * opened, all in one repeatable-read snapshot with the meters' back-fill state.
 */
async function withUnits(db: Executor, rows: readonly CustomerMeterRow[]): Promise<CustomerMeterUnits[]> {
  if (rows.length === 0) return [];
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute(async (trx) => {
      const meters = new Map((await metersByIds(trx, [...new Set(rows.map((row) => row.meter_id))])).map((m) => [m.id, m]));
      const customers = await customersByIds(
        trx,
        rows.map((row) => row.customer_id),
      );
      const out: CustomerMeterUnits[] = [];
      for (const row of rows) {
        const meter = meters.get(row.meter_id)!;
        const customer = customers.get(row.customer_id)!;
        const keys = [`c:${customer.id}`, ...(customer.external_id === null ? [] : [`e:${customer.external_id}`])];
        out.push({ row, meter, customer, consumed: await consumedUnits(trx, meter, keys, { since: row.reset_at, until: null }) });
      }
      return out;
    });
}

type CreditGrant = NonNullable<Awaited<ReturnType<typeof grantWithTermsForUpdate>>>;

/** A revoked grant's last credit taken back from its meter (never below 0), and forgotten by the grant. */
async function takeBack(trx: Executor, grant: CreditGrant, now: Date): Promise<void> {
  const { last_credited_meter_id: meterId, last_credited_units: units, last_credited_at: _at, ...rest } = grant.properties;
  if (typeof meterId === "string" && typeof units === "number") {
    const row = await repo.customerMeterForUpdate(
      trx,
      { organizationId: grant.organization_id, customerId: grant.customer_id, meterId },
      now,
    );
    await repo.updateCustomerMeter(trx, row.id, {
      credited_units: Math.max(0, row.credited_units - units),
      rollover_units: Math.min(row.rollover_units, Math.max(0, row.credited_units - units)),
      reset_at: row.reset_at,
      modified_at: now,
    });
  }
  await updateGrantProperties(trx, grant.id, rest, now);
  await enqueueCustomerStateChanged(trx, grant.customer_id);
}

/** The value a criterion orders by. */
function sortValue(units: CustomerMeterUnits, key: CustomerMeterSortKey): string | number {
  const { row } = units;
  switch (key) {
    case "created_at":
      return row.created_at.getTime();
    case "modified_at":
      return row.modified_at?.getTime() ?? -Infinity;
    case "customer_id":
      return row.customer_id;
    case "meter_id":
      return row.meter_id;
    case "customer_name":
      return units.customer.name ?? "";
    case "meter_name":
      return units.meter.name;
    case "credited_units":
      return row.credited_units;
    case "consumed_units":
      return units.consumed;
    case "balance":
      return row.credited_units - units.consumed;
  }
}

const COMPUTED: ReadonlySet<CustomerMeterSortKey> = new Set(["consumed_units", "balance"]);

/**
 * One page of the filter. Ordered by stored columns, the database pages; ordered by consumed units
 * or balance (computed from the buckets), every row of the filter is computed and ordered here
 * (docs/decisions.md, "Customer meters and credits").
 */
async function pageOf(
  db: Executor,
  filters: repo.CustomerMeterFilters,
  query: { page?: number; limit?: number; sorting?: readonly (CustomerMeterSortKey | `-${CustomerMeterSortKey}`)[] },
): Promise<Page<CustomerMeterUnits>> {
  const sorting = parseSorting<CustomerMeterSortKey>(query.sorting);
  if (!sorting.some(({ key }) => COMPUTED.has(key))) {
    return paginate(
      query,
      () => repo.countCustomerMeters(db, filters),
      async (offset, limit) => withUnits(db, await repo.listCustomerMeters(db, filters, sorting, { offset, limit })),
    );
  }
  const all = await withUnits(db, await repo.listCustomerMeters(db, filters, [], null));
  all.sort((a, b) => {
    for (const { key, direction } of sorting) {
      const x = sortValue(a, key);
      const y = sortValue(b, key);
      if (x !== y) return (x < y ? -1 : 1) * (direction === "desc" ? -1 : 1);
    }
    return a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0;
  });
  const { offset, limit } = pageWindow(query);
  return toPage(all.slice(offset, offset + limit), all.length, query);
}

async function oneCustomerMeter(db: Executor, id: string, filters: repo.CustomerMeterFilters): Promise<CustomerMeterUnits> {
  const row = await repo.findCustomerMeter(db, id, filters);
  if (!row) throw new ResourceNotFound();
  return (await withUnits(db, [row]))[0]!;
}

type PortalSession = { organizationId: string; customerId: string };

const portalFilters = (session: PortalSession): repo.CustomerMeterFilters => ({
  allowed: [session.organizationId],
  customerIds: [session.customerId],
  hideArchived: true,
  heldOnly: true,
});

/** The merchant's list: archived meters' rows only when `meter_id` names them (the hosted service). */
async function listCustomerMeters(deps: Deps, query: CustomerMeterListQuery, allowed: OrganizationScope): Promise<Page<CustomerMeter>> {
  const filters: repo.CustomerMeterFilters = {
    allowed,
    organizationIds: query.organization_id,
    customerIds: query.customer_id,
    externalCustomerIds: query.external_customer_id,
    meterIds: query.meter_id,
    hideArchived: !query.meter_id?.length,
    heldOnly: false,
  };
  const page = await pageOf(deps.readDb, filters, query);
  return { ...page, items: page.items.map(toCustomerMeter) };
}

/** The session's customer's meters it holds (credited or subscribed), of meters not archived. */
async function listPortalCustomerMeters(db: Executor, query: PortalCustomerMeterListQuery, session: PortalSession) {
  const filters = {
    ...portalFilters(session),
    meterIds: query.meter_id,
    ...(query.query === undefined ? {} : { meterName: query.query }),
  };
  const page = await pageOf(db, filters, query);
  return { ...page, items: page.items.map(toCustomerCustomerMeter) };
}

/** Every meter row of the customer, as the state lists them (the hosted service lists every row). */
async function customerMetersOf(db: Executor, organizationId: string, customerId: string) {
  const rows = await repo.listCustomerMeters(
    db,
    { allowed: [organizationId], customerIds: [customerId], hideArchived: false, heldOnly: false },
    [{ key: "created_at", direction: "asc" }],
    null,
  );
  return (await withUnits(db, rows)).map(toCustomerMeterUnits);
}

/**
 * The row's credits after a cycle at `at`: the window resets there, carrying over at most the
 * rollover-flagged credits still unused (before this cycle's own credit is added).
 */
async function creditsAfterCycle(trx: Executor, grant: CreditGrant, meter: MeterRow, row: CustomerMeterRow, at: Date) {
  const keys = await customerKeysOf(trx, grant.organization_id, [grant.customer_id], []);
  // The balance at the cycle's instant: usage after it belongs to the new window.
  const consumed = await consumedUnits(trx, meter, keys, { since: row.reset_at, until: at });
  // The hosted service's rollover: the whole unused units, at most the rollover-flagged credits, never negative.
  const carried = Math.max(0, Math.min(Math.floor(row.credited_units - consumed), row.rollover_units));
  return { credited: carried, rollover: carried, resetAt: at };
}

/**
 * Applies a `meter_credit` grant's change (the `customer_meters.credit` job). Granted: `+units`.
 * Cycled: the window resets at the cycle (once per cycle, however many credits of the meter
 * cycle with it), carrying over at most the rollover-flagged credits still unused, then `+units`.
 * Revoked: the last credit taken back (never below 0), and the grant forgets it, so a grant
 * restored later credits again. The grant remembers its last credit, so a repeated or late job
 * applies nothing twice; a job whose grant changed state since (revoked, or granted again)
 * does nothing, the later job applies the grant as it is.
 */
async function applyCredit(deps: Deps, payload: MeterCreditPayload): Promise<void> {
  const at = new Date(payload.at);
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    const grant = await grantWithTermsForUpdate(trx, payload.grant_id);
    if (!grant || grant.type !== "meter_credit" || (grant.revoked_at !== null) !== (payload.kind === "revoke")) return;
    const terms = grant.terms as unknown as MeterCreditTerms;
    const lastAt = typeof grant.properties.last_credited_at === "string" ? new Date(grant.properties.last_credited_at) : null;
    if (payload.kind === "revoke") {
      if (lastAt === null) return;
      await takeBack(trx, grant, now);
      return;
    }
    if (lastAt !== null && (payload.kind === "grant" || lastAt >= at)) return;
    const meter = await findMeter(trx, terms.meter_id, [grant.organization_id]);
    if (!meter) return;
    const row = await repo.customerMeterForUpdate(
      trx,
      { organizationId: grant.organization_id, customerId: grant.customer_id, meterId: meter.id },
      now,
    );
    const cycled = payload.kind === "cycle" && lastAt !== null && (row.reset_at === null || row.reset_at < at);
    const window = cycled
      ? await creditsAfterCycle(trx, grant, meter, row, at)
      : { credited: row.credited_units, rollover: row.rollover_units, resetAt: row.reset_at };
    await repo.updateCustomerMeter(trx, row.id, {
      credited_units: window.credited + terms.units,
      rollover_units: window.rollover + (terms.rollover ? terms.units : 0),
      reset_at: window.resetAt,
      modified_at: now,
    });
    await updateGrantProperties(
      trx,
      grant.id,
      { ...grant.properties, last_credited_meter_id: meter.id, last_credited_units: terms.units, last_credited_at: at.toISOString() },
      now,
    );
    await enqueueCustomerStateChanged(trx, grant.customer_id);
  });
}

/** The customer meters' operations, bound to the service's dependencies. */
export function createCustomerMeterService(deps: Deps) {
  const { db } = deps;
  return {
    list: (query: CustomerMeterListQuery, allowed: OrganizationScope) => listCustomerMeters(deps, query, allowed),
    get: async (id: string, allowed: OrganizationScope): Promise<CustomerMeter> =>
      toCustomerMeter(await oneCustomerMeter(db, id, { allowed, hideArchived: false, heldOnly: false })),
    portalList: (query: PortalCustomerMeterListQuery, session: PortalSession) => listPortalCustomerMeters(db, query, session),
    portalGet: async (id: string, session: PortalSession): Promise<CustomerCustomerMeter> =>
      toCustomerCustomerMeter(await oneCustomerMeter(db, id, portalFilters(session))),
    ofCustomer: (organizationId: string, customerId: string) => customerMetersOf(db, organizationId, customerId),
    applyCredit: (payload: MeterCreditPayload) => applyCredit(deps, payload),
  };
}
export type CustomerMeterService = ReturnType<typeof createCustomerMeterService>;
