import type { Insertable, Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { productPriceRows } from "../products/products.steps.ts";
import type { SubscriptionUsageChargesTable } from "./subscriptions.table.ts";

/** The subscription's frozen metered prices with what they charge per unit and on which meter. */
export const meteredPrices = (db: Executor, subscriptionId: string) =>
  db
    .selectFrom("subscription_prices as sp")
    .innerJoin(productPriceRows("pp"), "pp.id", "sp.product_price_id")
    .select(["pp.id", "pp.unit_amount", "pp.cap_amount", "pp.meter_id", "pp.meter_name"])
    .where("sp.subscription_id", "=", subscriptionId)
    .where("pp.amount_type", "=", "metered_unit")
    .orderBy("sp.position")
    .execute();

/** Every period's usage charge of the subscription, oldest first, with its price's terms. */
export const usageChargesOf = (db: Executor, subscriptionId: string) =>
  db
    .selectFrom("subscription_usage_charges as uc")
    .innerJoin(productPriceRows("pp"), "pp.id", "uc.product_price_id")
    .select(["uc.id", "uc.product_price_id", "uc.period_start", "uc.period_end", "uc.quantity", "uc.amount", "uc.credited_units"])
    .select(["pp.unit_amount", "pp.cap_amount", "pp.meter_id", "pp.meter_name"])
    .where("uc.subscription_id", "=", subscriptionId)
    .orderBy("uc.period_start")
    .orderBy("uc.product_price_id")
    .execute();

export const insertUsageCharge = (db: Executor, values: Insertable<SubscriptionUsageChargesTable>) =>
  db.insertInto("subscription_usage_charges").values(values).execute();

export const updateUsageCharge = (db: Executor, id: string, values: Updateable<SubscriptionUsageChargesTable>) =>
  db.updateTable("subscription_usage_charges").set(values).where("id", "=", id).execute();
