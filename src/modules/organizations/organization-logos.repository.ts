import type { Executor } from "../../db/database.ts";
import type { OrganizationLogosTable } from "./organization-logos.table.ts";

/**
 * Stores a fetched logo, replacing any earlier one, only while the organization's avatar URL is
 * still the URL it came from: a fetch that finishes after the URL changed keeps nothing.
 */
export const saveLogoIfCurrent = (db: Executor, logo: OrganizationLogosTable) =>
  db
    .insertInto("organization_logos")
    .columns(["organization_id", "source_url", "content", "fetched_at"])
    .expression((eb) =>
      eb
        .selectFrom("organizations")
        .select((sel) => [
          sel.ref("id").as("organization_id"),
          sel.val(logo.source_url).as("source_url"),
          sel.val(logo.content).as("content"),
          sel.val(logo.fetched_at).as("fetched_at"),
        ])
        .where("id", "=", logo.organization_id)
        .where("avatar_url", "=", logo.source_url),
    )
    .onConflict((oc) =>
      oc.column("organization_id").doUpdateSet((eb) => ({
        source_url: eb.ref("excluded.source_url"),
        content: eb.ref("excluded.content"),
        fetched_at: eb.ref("excluded.fetched_at"),
      })),
    )
    .executeTakeFirst();
