import { sql, type ExpressionBuilder, type Insertable, type Updateable } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { Database, Executor } from "../../db/database.ts";
import { customerJson } from "../customers/customers.steps.ts";
import { discountJson } from "../discounts/discounts.steps.ts";
import { productJson } from "../products/products.steps.ts";
import { orderDependentReads } from "./order-dependent-reads.ts";
import type { OrdersTable } from "./orders.table.ts";

// What the `Order` read schema embeds, as JSON columns of a statement over one orders row: a read,
// or the write that answers the order as written (no read after the write).

/** The relations besides the items, of the orders row `table` names (`o`, or `orders` in an insert, which takes no alias). */
const relations = (table: "o" | "orders") => [
  customerJson(sql.ref<string>(`${table}.customer_id`)).as("customer"),
  productJson(sql.ref<string | null>(`${table}.product_id`)).as("product"),
  discountJson(sql.ref<string | null>(`${table}.discount_id`)).as("discount"),
  orderDependentReads()
    .subscriptionJson(sql.ref<string | null>(`${table}.subscription_id`))
    .as("subscription"),
];

/** Everything the `Order` read schema embeds, as JSON columns of a query over `orders as o`. */
export const orderEmbedded = (eb: ExpressionBuilder<Database & { o: OrdersTable }, "o">) => [
  jsonArrayFrom(eb.selectFrom("order_items as i").selectAll("i").whereRef("i.order_id", "=", "o.id").orderBy("i.position")).as("items"),
  ...relations("o"),
];

/** Updates an order and answers it as written with its embedded relations: the write and the read in one statement. */
export const updateOrderEmbedded = (db: Executor, id: string, values: Updateable<OrdersTable>) =>
  db.updateTable("orders as o").set(values).where("o.id", "=", id).returningAll("o").returning(orderEmbedded).executeTakeFirstOrThrow();

/** Inserts an order and answers it with the relations it embeds besides its items (written after it). */
export const insertOrderWithRelations = (db: Executor, values: Insertable<OrdersTable>) =>
  db.insertInto("orders").values(values).returningAll().returning(relations("orders")).executeTakeFirstOrThrow();
