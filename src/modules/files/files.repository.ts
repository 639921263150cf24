import { sql, type Insertable, type Updateable } from "kysely";
import type { Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { given } from "../../schema/pagination.ts";
import type { DownloadablesTable, FileRow, FilesTable } from "./files.table.ts";

const liveFiles = (db: Executor, allowed: OrganizationScope) => {
  let query = db.selectFrom("files").where("deleted_at", "is", null);
  if (allowed !== null) query = query.where("organization_id", "in", allowed);
  return query;
};

export const insertFile = (db: Executor, values: Insertable<FilesTable>): Promise<FileRow> =>
  db.insertInto("files").values(values).returningAll().executeTakeFirstOrThrow();

export const findFile = (db: Executor, id: string, allowed: OrganizationScope): Promise<FileRow | undefined> =>
  liveFiles(db, allowed).selectAll().where("id", "=", id).executeTakeFirst();

export const findFileForUpdate = (db: Executor, id: string, allowed: OrganizationScope): Promise<FileRow | undefined> =>
  liveFiles(db, allowed).selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export const updateFile = (db: Executor, id: string, values: Updateable<FilesTable>): Promise<FileRow> =>
  db.updateTable("files").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

export interface FileFilter {
  organizationIds?: readonly string[] | undefined;
  ids?: readonly string[] | undefined;
}

/** Uploaded files only, as the list shows them. */
const listed = (db: Executor, allowed: OrganizationScope, filter: FileFilter) => {
  let query = liveFiles(db, allowed).where("is_uploaded", "=", true);
  if (given(filter.organizationIds)) query = query.where("organization_id", "in", filter.organizationIds);
  if (given(filter.ids)) query = query.where("id", "in", filter.ids);
  return query;
};

export const countFiles = async (db: Executor, allowed: OrganizationScope, filter: FileFilter): Promise<number> =>
  Number(
    (
      await listed(db, allowed, filter)
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

export const pageFiles = (db: Executor, allowed: OrganizationScope, filter: FileFilter, page: { offset: number; limit: number }) =>
  listed(db, allowed, filter).selectAll().orderBy("created_at", "desc").orderBy("id").offset(page.offset).limit(page.limit).execute();

/** Which of the ids are live files of the organization. */
export const existingFileIds = async (db: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> =>
  ids.length === 0
    ? new Set()
    : new Set((await liveFiles(db, [organizationId]).select("id").where("id", "in", ids).execute()).map((row) => row.id));

/** The organization's uploaded `product_media` files among the ids. */
export const uploadedProductMedias = (db: Executor, organizationId: string, ids: readonly string[]): Promise<FileRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : liveFiles(db, [organizationId])
        .selectAll()
        .where("id", "in", ids)
        .where("service", "=", "product_media")
        .where("is_uploaded", "=", true)
        .execute();

/** Grants the files to the customer through the benefit (a revoked row is granted again, its count kept). */
export async function grantDownloadableRows(
  db: Executor,
  rows: readonly Omit<Insertable<DownloadablesTable>, "status">[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("downloadables")
    .values(rows.map((row) => ({ ...row, status: "granted" as const })))
    .onConflict((oc) => oc.columns(["customer_id", "benefit_id", "file_id"]).doUpdateSet({ status: "granted", modified_at: now }))
    .execute();
}

/** Revokes every file the benefit gives the customers. */
export async function revokeDownloadableRows(db: Executor, holders: readonly { customerId: string; benefitId: string }[], now: Date) {
  for (const { customerId, benefitId } of holders)
    await db
      .updateTable("downloadables")
      .set({ status: "revoked", modified_at: now })
      .where("customer_id", "=", customerId)
      .where("benefit_id", "=", benefitId)
      .where("status", "=", "granted")
      .execute();
}

/** What a customer may download now: granted rows of live, uploaded, enabled, unflagged files. */
const downloadableOf = (db: Executor, customerId: string, benefitIds: readonly string[] | undefined) => {
  let query = db
    .selectFrom("downloadables as d")
    .innerJoin("files as f", "f.id", "d.file_id")
    .where("d.customer_id", "=", customerId)
    .where("d.status", "=", "granted")
    .where("f.deleted_at", "is", null)
    .where("f.is_uploaded", "=", true)
    .where("f.is_enabled", "=", true)
    .where("f.flagged_malicious_at", "is", null);
  if (given(benefitIds)) query = query.where("d.benefit_id", "in", benefitIds);
  return query;
};

export const countCustomerDownloadables = async (db: Executor, customerId: string, benefitIds: readonly string[] | undefined) =>
  Number(
    (
      await downloadableOf(db, customerId, benefitIds)
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

export const pageCustomerDownloadables = (
  db: Executor,
  customerId: string,
  benefitIds: readonly string[] | undefined,
  page: { offset: number; limit: number },
) =>
  downloadableOf(db, customerId, benefitIds)
    .selectAll("f")
    .select(["d.id as downloadable_id", "d.benefit_id"])
    .orderBy("d.created_at", "desc")
    .orderBy("d.id")
    .offset(page.offset)
    .limit(page.limit)
    .execute();

/** The files these benefits give the customer now (as the portal lists them), with their rows' ids. */
export const customerDownloadablesOf = (db: Executor, customerId: string, benefitIds: readonly string[]) =>
  benefitIds.length === 0
    ? Promise.resolve([])
    : downloadableOf(db, customerId, benefitIds)
        .select(["d.id as downloadable_id", "d.benefit_id", "d.file_id", "f.name", "f.size"])
        .orderBy("d.id")
        .execute();

/** A download link's row with its file, locked while its count goes up. */
export const findDownloadableForUpdate = (db: Executor, id: string) =>
  db
    .selectFrom("downloadables as d")
    .innerJoin("files as f", "f.id", "d.file_id")
    .selectAll("f")
    .select(["d.id as downloadable_id", "d.status as downloadable_status"])
    .where("d.id", "=", id)
    .forUpdate("d")
    .executeTakeFirst();

export const countDownload = (db: Executor, id: string, now: Date) =>
  db
    .updateTable("downloadables")
    .set((eb) => ({ downloaded: eb("downloaded", "+", 1), last_downloaded_at: now }))
    .where("id", "=", id)
    .execute();

/**
 * The benefit's uploaded `downloadable` files among `fileIds`, with their downloads through it and
 * how many customers downloaded them.
 */
export const filesWithDownloads = (db: Executor, benefitId: string, fileIds: readonly string[]) =>
  fileIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom("files as f")
        .selectAll("f")
        .select((eb) => [
          eb
            .selectFrom("downloadables as d")
            .select(sql<number>`coalesce(sum(d.downloaded), 0)::int`.as("n"))
            .whereRef("d.file_id", "=", "f.id")
            .where("d.benefit_id", "=", benefitId)
            .as("downloads"),
          eb
            .selectFrom("downloadables as d")
            .select(sql<number>`count(DISTINCT d.customer_id)::int`.as("n"))
            .whereRef("d.file_id", "=", "f.id")
            .where("d.benefit_id", "=", benefitId)
            .where("d.downloaded", ">", 0)
            .as("downloaders"),
        ])
        .where("f.id", "in", fileIds)
        .where("f.deleted_at", "is", null)
        .where("f.is_uploaded", "=", true)
        .where("f.service", "=", "downloadable")
        .execute();

/** The files deleted since, for a reader to leave out what points at them (a product's medias). */
export const deletedFileIds = (eb: SubqueryScope) => eb.selectFrom("files").select("files.id").where("files.deleted_at", "is not", null);
