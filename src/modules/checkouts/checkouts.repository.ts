import { expressionBuilder, sql, type Expression, type Insertable, type RawBuilder, type Updateable } from "kysely";
import { jsonArrayFrom, jsonObjectFrom } from "kysely/helpers/postgres";
import { compiledLookup } from "../../db/compiled-lookup.ts";
import type { Database, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern, type SortCriterion } from "../../schema/pagination.ts";
import type { DiscountJson } from "../discounts/discounts.mapper.ts";
import type { ProductWithRelationsJson } from "../products/products.mapper.ts";
import { selectDiscounts } from "../discounts/discounts.steps.ts";
import { organizationClocks } from "../organizations/organizations.steps.ts";
import { productRelations, selectProducts } from "../products/products.steps.ts";
import type { CheckoutSortKeys } from "./checkout-inputs.schemas.ts";
import type { CheckoutRow, CheckoutStatus, CheckoutsTable } from "./checkouts.table.ts";
import { countRows } from "../../db/count-rows.ts";

export type CheckoutSortKey = (typeof CheckoutSortKeys)[number];

export type CheckoutWithRelations = CheckoutRow & {
  products: ProductWithRelationsJson[];
  discount: DiscountJson | null;
};

export type CheckoutLocator = { id: string } | { clientSecret: string };

/** A session's products in display order, each with its live relations, as one JSON array. */
const checkoutProducts = (db: Executor, checkoutId: string | Expression<string>) =>
  jsonArrayFrom(
    selectProducts(db)
      .innerJoin("checkout_products as cp", "cp.product_id", "p.id")
      .where("cp.checkout_id", "=", checkoutId)
      .orderBy("cp.position")
      .select((inner) => productRelations(inner)),
  );

/**
 * Checkouts with their products (each with live prices, benefits and medias) and their discount,
 * in one statement: the read path of every checkout response.
 */
const checkoutsWithRelations = (db: Executor) =>
  db
    .selectFrom("checkouts as c")
    .selectAll("c")
    .select((eb) => [
      checkoutProducts(db, eb.ref("c.id")).as("products"),
      jsonObjectFrom(selectDiscounts(db).where("d.id", "=", eb.ref("c.discount_id"))).as("discount"),
    ]);

function findQuery(db: Executor, where: CheckoutLocator, allowed: OrganizationScope) {
  let query = checkoutsWithRelations(db);
  query = "id" in where ? query.where("c.id", "=", where.id) : query.where("c.client_secret", "=", where.clientSecret);
  return allowed === null ? query : query.where("c.organization_id", "in", allowed);
}

// The read path of every checkout response: its nested statement is compiled once per shape.
const compiledFind = compiledLookup("checkout", (db, by: "id" | "secret", key, scope) =>
  findQuery(db, by === "id" ? { id: key } : { clientSecret: key }, scope),
);

export async function findCheckoutWithRelations(
  db: Executor,
  where: CheckoutLocator,
  allowed: OrganizationScope,
): Promise<CheckoutWithRelations | undefined> {
  const result = await db.executeQuery<CheckoutWithRelations>(
    "id" in where ? compiledFind(db, "id", where.id, allowed) : compiledFind(db, "secret", where.clientSecret, allowed),
  );
  // JSON aggregation returns timestamps as text; the Jsonified types say so.
  return result.rows[0];
}

export interface CheckoutListFilters {
  organizationIds: string[] | undefined;
  productIds: string[] | undefined;
  customerIds: string[] | undefined;
  externalCustomerIds: string[] | undefined;
  statuses: CheckoutStatus[] | undefined;
  emailQuery: string | null;
}

function filteredCheckouts(db: Executor, filters: CheckoutListFilters, allowed: OrganizationScope) {
  let query = checkoutsWithRelations(db);
  if (allowed !== null) query = query.where("c.organization_id", "in", allowed);
  if (filters.organizationIds) query = query.where("c.organization_id", "in", filters.organizationIds);
  if (filters.productIds) query = query.where("c.product_id", "in", filters.productIds);
  if (filters.customerIds) query = query.where("c.customer_id", "in", filters.customerIds);
  if (filters.externalCustomerIds) query = query.where("c.external_customer_id", "in", filters.externalCustomerIds);
  if (filters.statuses) query = query.where("c.status", "in", filters.statuses);
  if (filters.emailQuery) query = query.where("c.customer_email", "ilike", containsPattern(filters.emailQuery));
  return query;
}

export const countCheckouts = (db: Executor, filters: CheckoutListFilters, allowed: OrganizationScope): Promise<number> =>
  countRows(filteredCheckouts(db, filters, allowed));

/** One page, ordered by the criteria and then by id, so pages never repeat or skip rows. */
export async function listCheckouts(
  db: Executor,
  filters: CheckoutListFilters,
  allowed: OrganizationScope,
  sorting: readonly SortCriterion<CheckoutSortKey>[],
  offset: number,
  limit: number,
): Promise<CheckoutWithRelations[]> {
  let query = filteredCheckouts(db, filters, allowed);
  for (const { key, direction } of sorting) query = query.orderBy(`c.${key}`, direction);
  return await query.orderBy("c.id").offset(offset).limit(limit).execute();
}

/** The session row locked for the rest of the transaction: every state change goes through here. */
export async function findCheckoutForUpdate(
  db: Executor,
  where: CheckoutLocator,
  allowed: OrganizationScope,
): Promise<CheckoutRow | undefined> {
  let query = db.selectFrom("checkouts").selectAll();
  query = "id" in where ? query.where("id", "=", where.id) : query.where("client_secret", "=", where.clientSecret);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query.forUpdate().executeTakeFirst();
}

/** Products of an organization by id, with their relations, as JSON rows (missing ids are left out). */
export async function findProductsWithRelations(
  db: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<ProductWithRelationsJson[]> {
  if (ids.length === 0) return [];
  const row = await db
    .selectNoFrom(
      jsonArrayFrom(
        selectProducts(db)
          .where("p.organization_id", "=", organizationId)
          .where("p.id", "in", ids)
          .select((inner) => productRelations(inner)),
      ).as("products"),
    )
    .executeTakeFirstOrThrow();
  return row.products;
}

/** The products offered by a session, in display order. */
export async function findCheckoutProducts(db: Executor, checkoutId: string): Promise<ProductWithRelationsJson[]> {
  const row = await db.selectNoFrom(checkoutProducts(db, checkoutId).as("products")).executeTakeFirstOrThrow();
  return row.products;
}

export async function insertCheckout(
  db: Executor,
  values: Insertable<CheckoutsTable>,
  productIds: readonly string[],
): Promise<CheckoutRow> {
  const row = await db.insertInto("checkouts").values(values).returningAll().executeTakeFirstOrThrow();
  if (productIds.length) {
    await db
      .insertInto("checkout_products")
      .values(
        productIds.map((product_id, position) => ({ organization_id: row.organization_id, checkout_id: row.id, product_id, position })),
      )
      .execute();
  }
  return row;
}

export const updateCheckout = (db: Executor, id: string, values: Updateable<CheckoutsTable>) =>
  db.updateTable("checkouts").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/**
 * Adds the processor's customer (Stripe's `cus_…`) to the session's processor metadata as
 * `customer_id`, keeping what is there: read and written by the one statement, so a concurrent
 * write of the other keys is never lost.
 */
export const addProcessorCustomerToCheckout = (db: Executor, id: string, processorCustomer: string) =>
  db
    .updateTable("checkouts")
    .set({ payment_processor_metadata: sql`payment_processor_metadata || jsonb_build_object('customer_id', ${processorCustomer}::text)` })
    .where("id", "=", id)
    .execute();

/** Moves an open session past its expiry to `expired`; returns it when this call did so. */
export const expireCheckout = (db: Executor, id: string, now: Date) =>
  db
    .updateTable("checkouts")
    .set({ status: "expired", modified_at: now })
    .where("id", "=", id)
    .where("status", "=", "open")
    .where("expires_at", "<=", now)
    .returning("id")
    .executeTakeFirst();

// What the test clock runs of an organization's checkouts: their next expiry and the expired ones.

/** The earliest expiry of the organization's open sessions, as an expression of the caller's statement. */
export const nextCheckoutExpiryAt = (organizationId: string): RawBuilder<Date | null> =>
  sql<Date | null>`(SELECT min(expires_at) FROM checkouts WHERE organization_id = ${organizationId} AND status = 'open')`;

export const dueCheckoutIds = async (db: Executor, organizationId: string, now: Date): Promise<string[]> =>
  (
    await db
      .selectFrom("checkouts")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("status", "=", "open")
      .where("expires_at", "<=", now)
      .orderBy("expires_at")
      .execute()
  ).map((row) => row.id);

/**
 * What an order's documents print of the checkout it came from (the buyer's locale and business
 * flag), a table to join under `alias` (orders is below checkouts: services.ts hands it over).
 */
export const checkoutBuyers = <A extends string>(alias: A) =>
  expressionBuilder<Database>().selectFrom("checkouts").select(["id", "locale", "is_business_customer"]).as(alias);

/** Records the buyer's first view of a session; later views leave it as it is. */
export const markCheckoutOpened = (db: Executor, id: string, at: Date) =>
  db.updateTable("checkouts").set({ opened_at: at }).where("id", "=", id).where("opened_at", "is", null).execute();

/** The test-clock offset of the organization whose session a client secret opens (0 when unknown). */
export async function checkoutClockOffset(db: Executor, clientSecret: string): Promise<number> {
  const row = await db
    .selectFrom("checkouts as c")
    .innerJoin(
      (eb) => organizationClocks(eb).as("o"),
      (join) => join.onRef("o.id", "=", "c.organization_id"),
    )
    .select("o.clock_offset_ms")
    .where("c.client_secret", "=", clientSecret)
    .executeTakeFirst();
  return row?.clock_offset_ms ?? 0;
}
