import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { CustomerSessionsTable } from "./customer-sessions.table.ts";

export const insertCustomerSession = (db: Executor, values: Insertable<CustomerSessionsTable>) =>
  db.insertInto("customer_sessions").values(values).returning("id").executeTakeFirstOrThrow();
