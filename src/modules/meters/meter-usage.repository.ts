import type { Executor } from "../../db/database.ts";

/**
 * A customer's credits of a meter and the instant its window opened, read `FOR SHARE`, so a credit
 * or reset cannot change them until the caller commits. Read through the database schema:
 * customer meters sit above subscriptions, which bill with this.
 */
export const customerMeterCreditsForShare = (db: Executor, customerId: string, meterId: string) =>
  db
    .selectFrom("customer_meters")
    .select(["credited_units", "reset_at"])
    .where("customer_id", "=", customerId)
    .where("meter_id", "=", meterId)
    .forShare()
    .executeTakeFirst();
