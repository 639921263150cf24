import { expressionBuilder, sql, type Expression, type Insertable, type RawBuilder, type SqlBool, type Updateable } from "kysely";
import type { Database, Executor, SubqueryScope } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { OrganizationAccessTokensTable, OrganizationsTable } from "./organizations.table.ts";
import { countRows } from "../../db/count-rows.ts";
import type { SortCriterion } from "../../schema/pagination.ts";
import type { OrganizationSortKeys } from "./organization-inputs.schemas.ts";

export const findOrganization = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("organizations").selectAll().where("id", "=", id);
  if (allowed !== null) query = query.where("id", "in", allowed);
  return query.executeTakeFirst();
};

/** Locks the organization row so that concurrent updates merge their settings one after the other. */
export const findOrganizationForUpdate = (db: Executor, id: string, allowed: OrganizationScope) => {
  let query = db.selectFrom("organizations").selectAll().where("id", "=", id);
  if (allowed !== null) query = query.where("id", "in", allowed);
  return query.forUpdate().executeTakeFirst();
};

function listed(db: Executor, allowed: OrganizationScope, slug: string | undefined) {
  let query = db.selectFrom("organizations");
  if (allowed !== null) query = query.where("id", "in", allowed);
  if (slug !== undefined) query = query.where("slug", "=", slug);
  return query;
}

export const countOrganizations = (db: Executor, allowed: OrganizationScope, slug: string | undefined): Promise<number> =>
  countRows(listed(db, allowed, slug));

/**
 * A page of the organizations. Every organization here is `active` since its creation and none is
 * under review: `days_in_status` orders as the creation time reversed, `next_review_threshold` as nothing.
 */
export async function listOrganizations(
  db: Executor,
  allowed: OrganizationScope,
  slug: string | undefined,
  sorting: SortCriterion<(typeof OrganizationSortKeys)[number]>[],
  offset: number,
  limit: number,
) {
  let query = listed(db, allowed, slug).selectAll();
  for (const { key, direction } of sorting) {
    if (key === "next_review_threshold") continue;
    if (key === "days_in_status") query = query.orderBy("created_at", direction === "asc" ? "desc" : "asc");
    else query = query.orderBy(key, direction);
  }
  return await query.orderBy("id").offset(offset).limit(limit).execute();
}

/** The columns of the organization's own email sender (an extension); undefined for an unknown organization. */
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

/** The organization's tokens not revoked (expired ones included, until revoked), newest first. */
const unrevokedTokens = (db: Executor, organizationId: string) =>
  db.selectFrom("organization_access_tokens").where("organization_id", "=", organizationId).where("revoked_at", "is", null);

export const countOrganizationTokens = (db: Executor, organizationId: string): Promise<number> =>
  countRows(unrevokedTokens(db, organizationId));

export const listOrganizationTokens = (db: Executor, organizationId: string, offset: number, limit: number) =>
  unrevokedTokens(db, organizationId).selectAll().orderBy("created_at", "desc").orderBy("id").offset(offset).limit(limit).execute();

/** Revokes a token once; undefined when unknown or revoked already. */
export const revokeOrganizationToken = (db: Executor, id: string, now: Date) =>
  db
    .updateTable("organization_access_tokens")
    .set({ revoked_at: now, modified_at: now })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .returning("id")
    .executeTakeFirst();

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

// The sandbox clock's offset of an organization (the test clock's reads and writes).

export const findClockOffset = async (db: Executor, organizationId: string, allowed: OrganizationScope): Promise<number | undefined> => {
  let query = db.selectFrom("organizations").select("clock_offset_ms").where("id", "=", organizationId);
  if (allowed !== null) query = query.where("id", "in", allowed);
  return (await query.executeTakeFirst())?.clock_offset_ms;
};

export const setClockOffset = (db: Executor, organizationId: string, offsetMs: number) =>
  db.updateTable("organizations").set({ clock_offset_ms: offsetMs }).where("id", "=", organizationId).execute();

// What orders and subscriptions read of their organizations, inside their own statements.

/** The organization's name, a sort key of the caller's rows. */
export const organizationNameOf = (organizationId: Expression<string>) =>
  sql<string>`(SELECT g.name FROM organizations g WHERE g.id = ${organizationId})`;

/** Whether the organization's name matches `pattern` (ILIKE). */
export const organizationNameMatches = (organizationId: Expression<string>, pattern: string): Expression<SqlBool> => {
  const eb = expressionBuilder<Database>();
  return eb.exists(eb.selectFrom("organizations as g").select("g.id").where("g.id", "=", organizationId).where("g.name", "ilike", pattern));
};

/**
 * The organizations for which `due` holds at their own time (real time plus their sandbox test
 * clock's offset), with that offset: `due` gets the organization's id and its time, as expressions.
 */
export const organizationsWithDue = (
  db: Executor,
  now: Date,
  due: (organizationId: Expression<string>, organizationNow: Expression<Date>) => Expression<SqlBool>,
) =>
  db
    .selectFrom("organizations as o")
    .select(["o.id", "o.clock_offset_ms"])
    .where((eb) => due(eb.ref("o.id"), sql<Date>`${now}::timestamptz + o.clock_offset_ms * interval '1 millisecond'`))
    .execute();

// What an order's documents read of the seller.

/** The seller as its documents print it, with its fetched logo. */
export const organizationForDocument = (db: Executor, id: string) =>
  db
    .selectFrom("organizations as o")
    // The logo fetched from the avatar URL, only while the avatar URL is still the one it came from.
    .leftJoin("organization_logos as l", (join) => join.onRef("l.organization_id", "=", "o.id").onRef("l.source_url", "=", "o.avatar_url"))
    .select(["o.id", "o.name", "o.email", "o.website", "o.avatar_url", "o.legal_name", "o.legal_address", "o.tax_registrations"])
    .select("l.content as fetched_logo")
    .where("o.id", "=", id)
    .executeTakeFirstOrThrow();

/** What credit-note numbering reads of the seller: its invoice prefix, or its slug. */
export const numberingOrganization = (db: Executor, id: string) =>
  db.selectFrom("organizations").select(["id", "slug", "invoice_prefix"]).where("id", "=", id).executeTakeFirstOrThrow();

// Organizations as other modules join them in their own statements.

/** Each organization's clock offset (the sandbox's test clock), for a reader to join by id: a session's authentication reads it. */
export const organizationClocks = (eb: SubqueryScope) => eb.selectFrom("organizations").select(["id", "clock_offset_ms"]);

/** An organization's slug, as an expression of the caller's statement (the portal sorts grants by their seller). */
export const organizationSlug = (organizationId: Expression<string>): RawBuilder<string> =>
  sql<string>`(SELECT o.slug FROM organizations o WHERE o.id = ${organizationId})`;
