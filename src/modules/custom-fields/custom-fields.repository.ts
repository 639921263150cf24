import { sql, type Expression, type Insertable, type Updateable } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { countRows } from "../../db/count-rows.ts";
import type { Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { containsPattern, type SortCriterion } from "../../schema/pagination.ts";
import type { CustomFieldSortKeys } from "./custom-field-inputs.schemas.ts";
import type { CustomFieldType, CustomFieldsTable } from "./custom-fields.table.ts";

export const insertCustomField = (db: Executor, values: Insertable<CustomFieldsTable>) =>
  db.insertInto("custom_fields").values(values).returningAll().executeTakeFirstOrThrow();

const live = (db: Executor, allowed: OrganizationScope) => {
  let query = db.selectFrom("custom_fields as cf").where("cf.deleted_at", "is", null);
  if (allowed !== null) query = query.where("cf.organization_id", "in", allowed);
  return query;
};

export const findCustomField = (db: Executor, id: string, allowed: OrganizationScope) =>
  live(db, allowed).selectAll("cf").where("cf.id", "=", id).executeTakeFirst();

export const findCustomFieldForUpdate = (db: Executor, id: string, allowed: OrganizationScope) =>
  live(db, allowed).selectAll("cf").where("cf.id", "=", id).forUpdate().executeTakeFirst();

/** A live field of the organization with this slug. */
export const findCustomFieldBySlug = (db: Executor, organizationId: string, slug: string) =>
  live(db, [organizationId]).select("cf.id").where("cf.slug", "=", slug).executeTakeFirst();

export const updateCustomField = (db: Executor, id: string, values: Updateable<CustomFieldsTable>) =>
  db.updateTable("custom_fields").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

/** Soft-deletes the field and detaches it from every product. */
export async function deleteCustomField(db: Executor, id: string, now: Date): Promise<void> {
  await db.updateTable("custom_fields").set({ deleted_at: now, modified_at: now }).where("id", "=", id).execute();
  await db.deleteFrom("product_custom_fields").where("custom_field_id", "=", id).execute();
}

/**
 * A renamed slug is renamed inside the values already stored: sessions, orders and subscriptions
 * of the organization keep their data under the field's current key.
 */
export async function renameStoredValues(db: Executor, organizationId: string, from: string, to: string): Promise<void> {
  for (const table of ["checkouts", "orders", "subscriptions"] as const) {
    await sql`UPDATE ${sql.table(table)}
      SET custom_field_data = (custom_field_data - ${from}::text) || jsonb_build_object(${to}::text, custom_field_data -> ${from}::text)
      WHERE organization_id = ${organizationId} AND jsonb_exists(custom_field_data, ${from}::text)`.execute(db);
  }
}

/** Which of these IDs are live custom fields of the organization. */
export async function existingCustomFieldIds(db: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await live(db, [organizationId]).select("cf.id").where("cf.id", "in", ids).execute();
  return new Set(rows.map((row) => row.id));
}

/** Replaces the fields attached to a product, in this order. */
export async function attachCustomFields(
  db: Executor,
  organizationId: string,
  productId: string,
  fields: readonly { custom_field_id: string; required: boolean }[],
): Promise<void> {
  await db.deleteFrom("product_custom_fields").where("product_id", "=", productId).execute();
  if (fields.length === 0) return;
  await db
    .insertInto("product_custom_fields")
    .values(
      fields.map((field, position) => ({
        organization_id: organizationId,
        product_id: productId,
        custom_field_id: field.custom_field_id,
        required: field.required,
        position,
      })),
    )
    .execute();
}

export interface CustomFieldFilters {
  organizationIds: readonly string[] | null;
  query?: string;
  types: readonly CustomFieldType[] | null;
}

const filtered = (db: Executor, allowed: OrganizationScope, filters: CustomFieldFilters) => {
  let query = live(db, allowed);
  if (filters.organizationIds !== null) query = query.where("cf.organization_id", "in", filters.organizationIds);
  if (filters.types !== null) query = query.where("cf.type", "in", filters.types);
  if (filters.query !== undefined) {
    const pattern = containsPattern(filters.query);
    query = query.where((eb) => eb.or([eb("cf.name", "ilike", pattern), eb("cf.slug", "ilike", pattern)]));
  }
  return query;
};

export const countCustomFields = (db: Executor, allowed: OrganizationScope, filters: CustomFieldFilters): Promise<number> =>
  countRows(filtered(db, allowed, filters));

export async function listCustomFields(
  db: Executor,
  allowed: OrganizationScope,
  filters: CustomFieldFilters,
  sorting: SortCriterion<(typeof CustomFieldSortKeys)[number]>[],
  offset: number,
  limit: number,
) {
  let query = filtered(db, allowed, filters).selectAll("cf");
  for (const { key, direction } of sorting) query = query.orderBy(sql.ref(`cf.${key}`), direction);
  return await query.orderBy("cf.id").offset(offset).limit(limit).execute();
}

// The fields a product shows, embedded in the products' own statements.

/** The live custom fields attached to a product, in position order, each with its position and requirement, as a JSON array. */
export const attachedCustomFields = (eb: SubqueryScope, productId: Expression<string>) =>
  jsonArrayFrom(
    eb
      .selectFrom("product_custom_fields as pcf")
      .innerJoin("custom_fields as cf", "cf.id", "pcf.custom_field_id")
      .where("pcf.product_id", "=", productId)
      .where("cf.deleted_at", "is", null)
      .orderBy("pcf.position")
      .selectAll("cf")
      .select(["pcf.position", "pcf.required"]),
  );
