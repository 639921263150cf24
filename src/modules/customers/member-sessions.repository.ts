import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { organizationClocks } from "../organizations/organizations.steps.ts";
import type { MemberSessionsTable } from "./member-sessions.table.ts";

export const insertMemberSession = (db: Executor, values: Insertable<MemberSessionsTable>) =>
  db.insertInto("member_sessions").values(values).returningAll().executeTakeFirstOrThrow();

/** A session that authenticates: known hash, not expired at `now`, its member and customer not deleted. */
export const findLiveMemberSession = (db: Executor, tokenHash: string, now: Date) =>
  db
    .selectFrom("member_sessions as s")
    .innerJoin("members as m", "m.id", "s.member_id")
    .innerJoin("customers as c", "c.id", "s.customer_id")
    .innerJoin(
      (eb) => organizationClocks(eb).as("o"),
      (join) => join.onRef("o.id", "=", "s.organization_id"),
    )
    .select(["s.id", "s.organization_id", "s.customer_id", "s.member_id", "m.role", "o.clock_offset_ms"])
    .where("s.token_hash", "=", tokenHash)
    .where("s.expires_at", ">", now)
    .where("m.deleted_at", "is", null)
    .where("c.deleted_at", "is", null)
    .executeTakeFirst();

/** The expiry and return URL of a session, for the portal's introspection. */
export const findSessionSummary = (db: Executor, table: "customer_sessions" | "member_sessions", id: string) =>
  db.selectFrom(table).select(["expires_at", "return_url"]).where("id", "=", id).executeTakeFirst();
