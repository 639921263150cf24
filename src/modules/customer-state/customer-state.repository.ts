import type { NotNull } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import { compiledLookup } from "../../db/compiled-lookup.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { grantsOfCustomer } from "../benefits/benefits.steps.ts";
import { selectCustomersForRead } from "../customers/customers.steps.ts";
import { subscriptionsOfCustomer } from "../subscriptions/subscriptions.steps.ts";

export type CustomerLocator = { id: string } | { externalId: string };

/** The subscriptions that give access: cancel-pending ones still do, past_due ones no longer (the hosted service's rule). */
const GIVING_ACCESS = ["active", "trialing"] as const;

/**
 * A live customer with its active subscriptions and granted benefits, in one statement: the
 * customer by primary key (or external id), the subscriptions through `subscriptions_customer_idx`
 * (customer_id, status), the grants through `benefit_grants_org_customer_idx` (organization_id,
 * customer_id, …) joined to their benefit's type and metadata.
 */
function stateQuery(db: Executor, where: CustomerLocator, allowed: OrganizationScope) {
  let query = selectCustomersForRead(db)
    .select((eb) => [
      jsonArrayFrom(
        subscriptionsOfCustomer(eb, eb.ref("c.id"))
          .select([
            "s.id",
            "s.created_at",
            "s.modified_at",
            "s.custom_field_data",
            "s.metadata",
            "s.status",
            "s.amount",
            "s.currency",
            "s.recurring_interval",
            "s.current_period_start",
            "s.current_period_end",
            "s.trial_start",
            "s.trial_end",
            "s.cancel_at_period_end",
            "s.canceled_at",
            "s.started_at",
            "s.ends_at",
            "s.product_id",
            "s.discount_id",
          ])
          .where("s.status", "in", GIVING_ACCESS)
          .$narrowType<{ status: (typeof GIVING_ACCESS)[number] }>()
          .orderBy("s.created_at")
          .orderBy("s.id"),
      ).as("active_subscriptions"),
      jsonArrayFrom(
        grantsOfCustomer(eb, { organizationId: eb.ref("c.organization_id"), id: eb.ref("c.id") })
          .select([
            "g.id",
            "g.created_at",
            "g.modified_at",
            "g.granted_at",
            "g.benefit_id",
            "b.type as benefit_type",
            "b.metadata as benefit_metadata",
            "g.properties",
          ])
          .where("g.granted_at", "is not", null)
          .$narrowType<{ granted_at: NotNull }>()
          .orderBy("g.granted_at")
          .orderBy("g.id"),
      ).as("granted_benefits"),
    ])
    .where("c.deleted_at", "is", null);
  // Live external ids are unique per organization; an owner token spans organizations, where the oldest wins (as the customer read).
  query = "id" in where ? query.where("c.id", "=", where.id) : query.where("c.external_id", "=", where.externalId).orderBy("c.created_at");
  return (allowed === null ? query : query.where("c.organization_id", "in", allowed)).limit(1);
}

export type CustomerStateRow = NonNullable<Awaited<ReturnType<ReturnType<typeof stateQuery>["executeTakeFirst"]>>>;

// The state is read on every request of an integrator's app: its nested statement is compiled once
// per shape (as the checkout read's).
const compiledState = compiledLookup("customer-state", (db, by: "id" | "external", key, scope) =>
  stateQuery(db, by === "id" ? { id: key } : { externalId: key }, scope),
);

/** The customer's state as of this statement's snapshot; undefined when no live customer matches. */
export async function findCustomerState(
  db: Executor,
  where: CustomerLocator,
  allowed: OrganizationScope,
): Promise<CustomerStateRow | undefined> {
  const result = await db.executeQuery<CustomerStateRow>(
    "id" in where ? compiledState(db, "id", where.id, allowed) : compiledState(db, "external", where.externalId, allowed),
  );
  return result.rows[0];
}
