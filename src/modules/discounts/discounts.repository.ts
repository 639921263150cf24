import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { DiscountsTable } from "./discounts.table.ts";

export const insertDiscount = (db: Executor, values: Insertable<DiscountsTable>) =>
  db.insertInto("discounts").values(values).returningAll().executeTakeFirstOrThrow();
