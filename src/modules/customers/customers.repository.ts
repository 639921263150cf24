import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { CustomersTable } from "./customers.table.ts";

export const insertCustomer = (db: Executor, values: Insertable<CustomersTable>) =>
  db.insertInto("customers").values(values).returningAll().executeTakeFirstOrThrow();
