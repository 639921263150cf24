import { sql, type Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { CustomersTable } from "./customers.table.ts";

export const insertCustomer = (db: Executor, values: Insertable<CustomersTable>) =>
  db.insertInto("customers").values(values).returningAll().executeTakeFirstOrThrow();

/**
 * Customers as the read schema shows them: with the time of their first user event, matched by
 * customer id or by external id (events may arrive before the customer exists).
 */
export const selectCustomersForRead = (db: Executor) =>
  db
    .selectFrom("customers as c")
    .selectAll("c")
    .select(
      sql<Date | null>`LEAST(
        (SELECT min(e."timestamp") FROM events e WHERE e.organization_id = c.organization_id AND e.customer_id = c.id AND e.source = 'user'),
        (SELECT min(e."timestamp") FROM events e WHERE e.organization_id = c.organization_id AND e.external_customer_id = c.external_id AND e.source = 'user')
      )`.as("first_user_event_at"),
    );
