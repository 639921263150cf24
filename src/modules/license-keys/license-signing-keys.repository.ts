import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { LicenseSigningKeysTable } from "./license-keys.table.ts";

export const findActiveSigningKey = (db: Executor, organizationId: string) =>
  db
    .selectFrom("license_signing_keys")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("retired_at", "is", null)
    .executeTakeFirst();

/**
 * Inserts the organization's active key unless one exists: the partial unique index makes a
 * concurrent insert wait for the other and then do nothing, so two first uses make one key.
 */
export const insertActiveSigningKeyIfNone = (db: Executor, values: Insertable<LicenseSigningKeysTable>) =>
  db
    .insertInto("license_signing_keys")
    .values(values)
    .onConflict((conflict) => conflict.column("organization_id").where("retired_at", "is", null).doNothing())
    .execute();

/** Retires the active key; a concurrent rotation waits on the row and then finds none to retire. */
export const retireActiveSigningKey = (db: Executor, organizationId: string, now: Date) =>
  db
    .updateTable("license_signing_keys")
    .set({ retired_at: now })
    .where("organization_id", "=", organizationId)
    .where("retired_at", "is", null)
    .execute();

/** Records a refresh deadline the key signed, when it is later than any before. */
export const extendSignedUntil = (db: Executor, id: string, until: Date) =>
  db
    .updateTable("license_signing_keys")
    .set({ signed_until: until })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("signed_until", "is", null), eb("signed_until", "<", until)]))
    .execute();

/** The keys a verifier may meet: the active one and the retired ones with files still current, newest first. */
export const publishedSigningKeys = (db: Executor, organizationId: string, now: Date) =>
  db
    .selectFrom("license_signing_keys")
    .select(["id", "public_key"])
    .where("organization_id", "=", organizationId)
    .where((eb) => eb.or([eb("retired_at", "is", null), eb("signed_until", ">", now)]))
    // Descending puts nulls first in PostgreSQL: the active key, then the most recently retired.
    .orderBy("retired_at", "desc")
    .orderBy("id")
    .execute();
