import { sql, type Expression, type Insertable, type RawBuilder, type Updateable } from "kysely";
import type { Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { OrganizationAccessTokensTable, OrganizationsTable } from "./organizations.table.ts";
import { countRows } from "../../db/count-rows.ts";

export const findOrganization = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("organizations").selectAll().where("id", "=", id);
  if (allowed !== null) query = query.where("id", "in", allowed);
  return query.executeTakeFirst();
};

export const updateOrganization = (db: Executor, id: string, allowed: OrganizationScope, values: Updateable<OrganizationsTable>) => {
  let query = db.updateTable("organizations").set(values).where("id", "=", id);
  if (allowed !== null) query = query.where("id", "in", allowed);
  return query.returningAll().executeTakeFirst();
};

export const findOrganizationBySlug = (db: Executor, slug: string) =>
  db.selectFrom("organizations").select(["id", "name", "slug"]).where("slug", "=", slug).executeTakeFirst();

export const insertOrganization = (db: Executor, values: Insertable<OrganizationsTable>) =>
  db
    .insertInto("organizations")
    .values(values)
    .onConflict((oc) => oc.column("slug").doNothing())
    .returningAll()
    .executeTakeFirst();

export const insertOrganizationAccessToken = (db: Executor, values: Insertable<OrganizationAccessTokensTable>) =>
  db.insertInto("organization_access_tokens").values(values).returningAll().executeTakeFirstOrThrow();

/** A live organization token by hash: not revoked, not expired at `now`. */
export const findLiveOrganizationToken = (db: Executor, tokenHash: string, now: Date) =>
  db
    .selectFrom("organization_access_tokens as t")
    .innerJoin("organizations as o", "o.id", "t.organization_id")
    .select(["t.id", "t.organization_id", "t.scopes", "o.clock_offset_ms"])
    .where("t.token_hash", "=", tokenHash)
    .where("t.revoked_at", "is", null)
    .where((eb) => eb.or([eb("t.expires_at", "is", null), eb("t.expires_at", ">", now)]))
    .executeTakeFirst();

export const findLivePersonalToken = (db: Executor, tokenHash: string) =>
  db
    .selectFrom("personal_access_tokens")
    .select("id")
    .where("token_hash", "=", tokenHash)
    .where("revoked_at", "is", null)
    .executeTakeFirst();

export const countPersonalTokens = (db: Executor): Promise<number> =>
  countRows(db.selectFrom("personal_access_tokens").where("revoked_at", "is", null));

export const insertPersonalToken = (db: Executor, tokenHash: string, comment: string) =>
  db
    .insertInto("personal_access_tokens")
    .values({ token_hash: tokenHash, comment })
    .onConflict((oc) => oc.column("token_hash").doNothing())
    .execute();

/** Which of these organizations exist, in one query. */
export const findOrganizationIds = async (db: Executor, ids: readonly string[]): Promise<Set<string>> => {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom("organizations").select("id").where("id", "in", ids).execute();
  return new Set(rows.map((row) => row.id));
};

// Organizations as other modules join them in their own statements.

/** Each organization's clock offset (the sandbox's test clock), for a reader to join by id: a session's authentication reads it. */
export const organizationClocks = (eb: SubqueryScope) => eb.selectFrom("organizations").select(["id", "clock_offset_ms"]);

/** An organization's slug, as an expression of the caller's statement (the portal sorts grants by their seller). */
export const organizationSlug = (organizationId: Expression<string>): RawBuilder<string> =>
  sql<string>`(SELECT o.slug FROM organizations o WHERE o.id = ${organizationId})`;
