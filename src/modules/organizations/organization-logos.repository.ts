import type { Executor } from "../../db/database.ts";

/**
 * Stores the logo fetched from `sourceUrl`, replacing any earlier one, only while the
 * organization's avatar URL is still that URL: a fetch that finishes after the URL changed keeps nothing.
 */
export const saveLogoIfCurrent = (db: Executor, organizationId: string, sourceUrl: string, content: Buffer, fetchedAt: Date) =>
  db
    .insertInto("organization_logos")
    .columns(["organization_id", "source_url", "content", "fetched_at"])
    .expression((eb) =>
      eb
        .selectFrom("organizations")
        .select((sel) => [
          sel.ref("id").as("organization_id"),
          sel.val(sourceUrl).as("source_url"),
          sel.val(content).as("content"),
          sel.val(fetchedAt).as("fetched_at"),
        ])
        .where("id", "=", organizationId)
        .where("avatar_url", "=", sourceUrl),
    )
    .onConflict((oc) =>
      oc.column("organization_id").doUpdateSet((eb) => ({
        source_url: eb.ref("excluded.source_url"),
        content: eb.ref("excluded.content"),
        fetched_at: eb.ref("excluded.fetched_at"),
      })),
    )
    .executeTakeFirst();
