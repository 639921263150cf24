import { sql, type ExpressionBuilder, type RawBuilder } from "kysely";
import { countRows } from "../../db/count-rows.ts";
import type { Database, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern, type SortCriterion } from "../../schema/pagination.ts";
import type { CustomerMeterSortKey } from "./customer-meters.schemas.ts";
import { holdsMeterCredit } from "../benefits/benefits.steps.ts";
import { selectCustomers } from "../customers/customers.steps.ts";
import { selectMeters } from "../meters/meters.steps.ts";
import { pricesOnMeter } from "../products/products.steps.ts";
import { subscriptionsOfCustomer } from "../subscriptions/subscriptions.steps.ts";
import type { CustomerMeterRow, CustomerMetersTable } from "./customer-meters.table.ts";

export interface CustomerMeterFilters {
  allowed: OrganizationScope;
  organizationIds?: readonly string[];
  customerIds?: readonly string[];
  externalCustomerIds?: readonly string[];
  meterIds?: readonly string[];
  /** Meter name contains (the portal's `query`). */
  meterName?: string;
  /** Hide the rows of archived meters (the merchant list without `meter_id`, and the portal). */
  hideArchived: boolean;
  /**
   * The portal's rule: only meters the customer holds through a granted `meter_credit` benefit or an
   * active or trialing subscription with a metered price on the meter.
   */
  heldOnly: boolean;
}

/**
 * The portal's rule, over the row's customer and meter: a granted `meter_credit` benefit on the
 * meter, or an active or trialing subscription whose product has a price on it.
 */
const held = (eb: ExpressionBuilder<Database & { cm: CustomerMetersTable }, "cm">) =>
  eb.or([
    holdsMeterCredit(eb.ref("cm.customer_id"), eb.ref("cm.meter_id")),
    eb.exists(
      subscriptionsOfCustomer(eb, eb.ref("cm.customer_id"))
        .select(sql.lit(1).as("one"))
        .where("s.status", "in", ["active", "trialing"])
        .where((inner) =>
          inner.exists(pricesOnMeter(inner, inner.ref("s.product_id"), eb.ref("cm.meter_id")).select(sql.lit(1).as("one"))),
        ),
    ),
  ]);

const filtered = (db: Executor, filters: CustomerMeterFilters) =>
  db
    .selectFrom("customer_meters as cm")
    .innerJoin(selectMeters(db).as("m"), "m.id", "cm.meter_id")
    .innerJoin(selectCustomers(db).as("c"), "c.id", "cm.customer_id")
    .where("c.deleted_at", "is", null)
    .where((eb) =>
      eb.and([
        ...(filters.allowed !== null ? [eb("cm.organization_id", "in", filters.allowed)] : []),
        ...(filters.organizationIds?.length ? [eb("cm.organization_id", "in", filters.organizationIds)] : []),
        ...(filters.customerIds?.length ? [eb("cm.customer_id", "in", filters.customerIds)] : []),
        ...(filters.externalCustomerIds?.length ? [eb("c.external_id", "in", filters.externalCustomerIds)] : []),
        ...(filters.meterIds?.length ? [eb("cm.meter_id", "in", filters.meterIds)] : []),
        ...(filters.meterName !== undefined ? [eb("m.name", "ilike", containsPattern(filters.meterName))] : []),
        ...(filters.hideArchived ? [eb("m.archived_at", "is", null)] : []),
        ...(filters.heldOnly ? [held(eb)] : []),
      ]),
    );

export const countCustomerMeters = (db: Executor, filters: CustomerMeterFilters): Promise<number> => countRows(filtered(db, filters));

/** Keys the database can order by; the computed ones (consumed units, balance) are ordered by the service. */
const COLUMN: Partial<Record<CustomerMeterSortKey, string>> = {
  created_at: "cm.created_at",
  modified_at: "cm.modified_at",
  customer_id: "cm.customer_id",
  meter_id: "cm.meter_id",
  credited_units: "cm.credited_units",
  customer_name: "c.name",
  meter_name: "m.name",
};

/** The rows of the filter, ordered by `sorting` then id; a window when given, else every row. */
export async function listCustomerMeters(
  db: Executor,
  filters: CustomerMeterFilters,
  sorting: readonly SortCriterion<CustomerMeterSortKey>[],
  window: { offset: number; limit: number } | null,
): Promise<CustomerMeterRow[]> {
  let query = filtered(db, filters).selectAll("cm");
  for (const { key, direction } of sorting) {
    const column = COLUMN[key];
    // Nulls of `modified_at` (never changed) sort as the oldest.
    if (column !== undefined) query = query.orderBy(sql.ref(column), sql.raw(direction === "desc" ? "desc nulls last" : "asc nulls first"));
  }
  query = query.orderBy("cm.id");
  return window === null ? query.execute() : query.offset(window.offset).limit(window.limit).execute();
}

export const findCustomerMeter = (db: Executor, id: string, filters: CustomerMeterFilters): Promise<CustomerMeterRow | undefined> =>
  filtered(db, filters).selectAll("cm").where("cm.id", "=", id).executeTakeFirst();

/** The customer's meter locked for a credit, created (empty, window from all time) on its first credit. */
export async function customerMeterForUpdate(
  db: Executor,
  key: { organizationId: string; customerId: string; meterId: string },
  now: Date,
): Promise<CustomerMeterRow> {
  await db
    .insertInto("customer_meters")
    .values({ organization_id: key.organizationId, customer_id: key.customerId, meter_id: key.meterId, created_at: now, modified_at: null })
    .onConflict((oc) => oc.columns(["customer_id", "meter_id"]).doNothing())
    .execute();
  return db
    .selectFrom("customer_meters")
    .selectAll()
    .where("customer_id", "=", key.customerId)
    .where("meter_id", "=", key.meterId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export const updateCustomerMeter = (
  db: Executor,
  id: string,
  values: { credited_units: number; rollover_units: number; reset_at: Date | null; modified_at: Date },
) => db.updateTable("customer_meters").set(values).where("id", "=", id).execute();

/**
 * Activates the customer meters of `rows` (organization, customer, meter, created at) inside the
 * caller's statement: the meters' aggregation, on a customer's first event of a meter. Rows go in
 * the caller's order (by customer and meter, so two writers cannot deadlock) and an existing row
 * is kept, so two writers racing on one key keep one row.
 */
export const activateCustomerMeters = (rows: RawBuilder<unknown>) =>
  sql`INSERT INTO customer_meters (organization_id, customer_id, meter_id, created_at)
      ${rows}
      ON CONFLICT (customer_id, meter_id) DO NOTHING`;

/**
 * A customer's credits of a meter and the instant its window opened, read `FOR SHARE`, so a credit
 * or reset cannot change them until the caller commits (the meters' billing reads, which subtract
 * the credits from usage).
 */
export const customerMeterCreditsForShare = (db: Executor, customerId: string, meterId: string) =>
  db
    .selectFrom("customer_meters")
    .select(["credited_units", "reset_at"])
    .where("customer_id", "=", customerId)
    .where("meter_id", "=", meterId)
    .forShare()
    .executeTakeFirst();
