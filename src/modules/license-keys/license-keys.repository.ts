import { sql, type Insertable, type Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { LicenseKeyActivationsTable, LicenseKeyRow, LicenseKeysTable } from "./license-keys.table.ts";
import { selectCustomersForRead } from "../customers/customers.steps.ts";
import type { CustomerReadRow } from "../customers/customers.mapper.ts";
import type { LicenseKeyStatus } from "./license-keys.schemas.ts";
import { countRows } from "../../db/count-rows.ts";

export const insertLicenseKey = (db: Executor, values: Insertable<LicenseKeysTable>) =>
  db.insertInto("license_keys").values(values).returning(["id", "key"]).executeTakeFirstOrThrow();

const liveKeys = (db: Executor, allowed: OrganizationScope) => {
  let query = db.selectFrom("license_keys").where("deleted_at", "is", null);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query;
};

/** Keys by id, in full: what an order's confirmation email prints. */
export const keysByIds = (db: Executor, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom("license_keys").select(["id", "key", "limit_activations", "expires_at"]).where("id", "in", ids).execute();

/** The exact, case-sensitive key of one organization; soft-deleted keys do not exist. */
export const findKeyByValue = (db: Executor, organizationId: string, key: string) =>
  liveKeys(db, null).selectAll().where("organization_id", "=", organizationId).where("key", "=", key).executeTakeFirst();

/** Same, locking the row: activations and usage increments of one key run one at a time. */
export const findKeyByValueForUpdate = (db: Executor, organizationId: string, key: string) =>
  liveKeys(db, null).selectAll().where("organization_id", "=", organizationId).where("key", "=", key).forUpdate().executeTakeFirst();

export const findKey = (db: Executor, id: string, allowed: OrganizationScope, customerId: string | null) => {
  let query = liveKeys(db, allowed).selectAll().where("id", "=", id);
  if (customerId !== null) query = query.where("customer_id", "=", customerId);
  return query.executeTakeFirst();
};

/** The live key locked for a change by the organization (its validations and activations wait). */
export const findKeyForUpdate = (db: Executor, id: string, allowed: OrganizationScope) =>
  liveKeys(db, allowed).selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export const updateKey = (db: Executor, id: string, values: Updateable<LicenseKeysTable>) =>
  db.updateTable("license_keys").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

export const countLiveActivations = (db: Executor, licenseKeyId: string): Promise<number> =>
  countRows(db.selectFrom("license_key_activations").where("license_key_id", "=", licenseKeyId).where("deleted_at", "is", null));

export const insertActivation = (db: Executor, values: Insertable<LicenseKeyActivationsTable>) =>
  db.insertInto("license_key_activations").values(values).returningAll().executeTakeFirstOrThrow();

export const findLiveActivation = (db: Executor, licenseKeyId: string, activationId: string) =>
  db
    .selectFrom("license_key_activations")
    .selectAll()
    .where("id", "=", activationId)
    .where("license_key_id", "=", licenseKeyId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();

export const liveActivationsOf = (db: Executor, licenseKeyId: string) =>
  db
    .selectFrom("license_key_activations")
    .selectAll()
    .where("license_key_id", "=", licenseKeyId)
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .execute();

/** Soft-deletes a live activation of the key; false when there was none. */
export const deactivate = async (db: Executor, licenseKeyId: string, activationId: string, now: Date): Promise<boolean> => {
  const result = await db
    .updateTable("license_key_activations")
    .set({ deleted_at: now, modified_at: now })
    .where("id", "=", activationId)
    .where("license_key_id", "=", licenseKeyId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
};

export const recordValidation = (db: Executor, id: string, incrementUsage: number, now: Date): Promise<LicenseKeyRow> =>
  db
    .updateTable("license_keys")
    .set((eb) => ({
      validations: eb("validations", "+", 1),
      usage: eb("usage", "+", incrementUsage),
      last_validated_at: now,
    }))
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();

export const findCustomerForKey = (db: Executor, customerId: string): Promise<CustomerReadRow> =>
  selectCustomersForRead(db).where("c.id", "=", customerId).executeTakeFirstOrThrow();

export interface LicenseKeyFilter {
  allowed: OrganizationScope;
  organizationIds?: readonly string[];
  benefitIds?: readonly string[];
  statuses?: readonly LicenseKeyStatus[];
  customerIds?: readonly string[];
}

const filtered = (db: Executor, filter: LicenseKeyFilter) => {
  let query = liveKeys(db, filter.allowed);
  if (filter.organizationIds?.length) query = query.where("organization_id", "in", filter.organizationIds);
  if (filter.benefitIds?.length) query = query.where("benefit_id", "in", filter.benefitIds);
  if (filter.statuses?.length) query = query.where("status", "in", filter.statuses);
  if (filter.customerIds?.length) query = query.where("customer_id", "in", filter.customerIds);
  return query;
};

export const countKeys = async (db: Executor, filter: LicenseKeyFilter): Promise<number> => {
  const row = await filtered(db, filter)
    .select(sql<string>`count(*)`.as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
};

export const listKeys = (db: Executor, filter: LicenseKeyFilter, window: { limit: number; offset: number }) =>
  filtered(db, filter).selectAll().orderBy("created_at", "desc").orderBy("id").limit(window.limit).offset(window.offset).execute();

/** Sets the status of the keys a benefit grant issued (a subscription's grants revoked or restored). */
export async function setKeyStatus(db: Executor, ids: readonly string[], status: "granted" | "revoked", now: Date): Promise<void> {
  if (ids.length) await db.updateTable("license_keys").set({ status, modified_at: now }).where("id", "in", ids).execute();
}

export async function updateKeys(db: Executor, ids: readonly string[], values: Updateable<LicenseKeysTable>): Promise<void> {
  if (ids.length) await db.updateTable("license_keys").set(values).where("id", "in", ids).execute();
}

/** Records a heartbeat of a live activation of the key; false when there is none (unknown, deactivated or culled). */
export const recordHeartbeat = async (db: Executor, licenseKeyId: string, activationId: string, now: Date): Promise<boolean> => {
  const result = await db
    .updateTable("license_key_activations")
    .set({ last_heartbeat_at: now })
    .where("id", "=", activationId)
    .where("license_key_id", "=", licenseKeyId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
};

/** `coalesce(last heartbeat, creation) + interval + grace`: the instant a silent activation lapses. */
const lapsesAt = sql<Date>`coalesce(a.last_heartbeat_at, a.created_at) + make_interval(secs => k.heartbeat_interval_seconds + coalesce(k.heartbeat_grace_seconds, 0))`;

/** Keys with a live activation silent past its grace at `now`, oldest lapse first, at most `limit`. */
export const keysWithSilentActivations = async (db: Executor, now: Date, limit: number): Promise<string[]> => {
  const rows = await db
    .selectFrom("license_key_activations as a")
    .innerJoin("license_keys as k", "k.id", "a.license_key_id")
    .select("k.id")
    .where("a.deleted_at", "is", null)
    .where("k.deleted_at", "is", null)
    .where("k.heartbeat_interval_seconds", "is not", null)
    .where(lapsesAt, "<=", now)
    .groupBy("k.id")
    .orderBy(sql`min(${lapsesAt})`)
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
};

/** Deactivates the key's activations silent past its grace at `now` (the key's row locked by the caller); returns their ids. */
export const deactivateSilentActivations = async (db: Executor, key: LicenseKeyRow, now: Date): Promise<string[]> => {
  if (key.heartbeat_interval_seconds === null) return [];
  const lapse = (key.heartbeat_interval_seconds + (key.heartbeat_grace_seconds ?? 0)) * 1000;
  const rows = await db
    .updateTable("license_key_activations")
    .set({ deleted_at: now, modified_at: now })
    .where("license_key_id", "=", key.id)
    .where("deleted_at", "is", null)
    .where(sql<Date>`coalesce(last_heartbeat_at, created_at)`, "<=", new Date(now.getTime() - lapse))
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
};
