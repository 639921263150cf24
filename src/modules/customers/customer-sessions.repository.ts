import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { organizationClocks } from "../organizations/organizations.steps.ts";
import type { CustomerSessionsTable } from "./customer-sessions.table.ts";

export const insertCustomerSession = (db: Executor, values: Insertable<CustomerSessionsTable>) =>
  db.insertInto("customer_sessions").values(values).returningAll().executeTakeFirstOrThrow();

/** A session that authenticates: known hash, not expired at `now`, customer not deleted. */
export const findLiveCustomerSession = (db: Executor, tokenHash: string, now: Date) =>
  db
    .selectFrom("customer_sessions as s")
    .innerJoin("customers as c", "c.id", "s.customer_id")
    .innerJoin(
      (eb) => organizationClocks(eb).as("o"),
      (join) => join.onRef("o.id", "=", "s.organization_id"),
    )
    .select(["s.id", "s.organization_id", "s.customer_id", "o.clock_offset_ms"])
    .where("s.token_hash", "=", tokenHash)
    .where("s.expires_at", ">", now)
    .where("c.deleted_at", "is", null)
    .executeTakeFirst();
