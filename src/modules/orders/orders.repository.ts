import type { Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { OrderItemsTable, OrdersTable } from "./orders.table.ts";

export const insertOrder = (db: Executor, values: Insertable<OrdersTable>) =>
  db.insertInto("orders").values(values).returningAll().executeTakeFirstOrThrow();

export const insertOrderItems = (db: Executor, values: Insertable<OrderItemsTable>[]) =>
  values.length ? db.insertInto("order_items").values(values).returningAll().execute() : Promise.resolve([]);
