import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import type { Database, Executor } from "../../db/database.ts";
import { organizationsWithDue } from "../organizations/organizations.steps.ts";
import type { SubscriptionRow } from "./subscriptions.table.ts";

// Which subscriptions a reminder is due for, at the organization's time (the hosted service's rules,
// anchor-behaviour-wave3 §2.3): a long-cycle renewal within a week, a trial's end within its window.

type Subscriptions = ExpressionBuilder<Database, "subscriptions">;

const days = (count: number) => sql<string>`${`${count} days`}::interval`;

/** `count` days after `now` (a parameter or the organization's time). */
const within = (now: Expression<Date> | Date, count: number) => sql<Date>`(${now})::timestamptz + ${days(count)}`;

/** A cycle long enough to be reminded of: any year, 6 months or more, 25 weeks or more, 180 days or more. */
const longCycle = (eb: Subscriptions) =>
  eb.or([
    eb("recurring_interval", "=", "year"),
    eb.and([eb("recurring_interval", "=", "month"), eb("recurring_interval_count", ">=", 6)]),
    eb.and([eb("recurring_interval", "=", "week"), eb("recurring_interval_count", ">=", 25)]),
    eb.and([eb("recurring_interval", "=", "day"), eb("recurring_interval_count", ">=", 180)]),
  ]);

/** Some price bills something: a metered price or a frozen amount above zero (all free: no reminder). */
const billsSomething = (eb: Subscriptions) =>
  eb.exists(
    eb
      .selectFrom("subscription_prices as sp")
      .select("sp.subscription_id")
      .whereRef("sp.subscription_id", "=", "subscriptions.id")
      .where((inner) => inner.or([inner("sp.amount", "is", null), inner("sp.amount", ">", 0)])),
  );

/** Active, not cancel- or pause-scheduled, long-cycle, its period ending in (now, now + 7 days]. */
const renewalDue = (eb: Subscriptions, now: Expression<Date> | Date): Expression<SqlBool> =>
  eb.and([
    eb("status", "=", "active"),
    eb("cancel_at_period_end", "=", false),
    eb("pause_at_period_end", "=", false),
    eb("ends_at", "is", null),
    eb("current_period_end", ">", now),
    eb("current_period_end", "<=", within(now, 7)),
    longCycle(eb),
    billsSomething(eb),
  ]);

/** Trialing, not cancel-scheduled: a trial of 3 days or more within 3 days of its end, one of 1 to 3 days within a day. */
const trialEndDue = (eb: Subscriptions, now: Expression<Date> | Date): Expression<SqlBool> => {
  const length = sql`trial_end - trial_start`;
  return eb.and([
    eb("status", "=", "trialing"),
    eb("cancel_at_period_end", "=", false),
    eb("trial_start", "is not", null),
    eb("trial_end", ">", now),
    eb.or([
      eb.and([eb(length, ">=", days(3)), eb("trial_end", "<=", within(now, 3))]),
      eb.and([eb(length, ">=", days(1)), eb(length, "<", days(3)), eb("trial_end", "<=", within(now, 1))]),
    ]),
    billsSomething(eb),
  ]);
};

export type ReminderKind = "renewal" | "trial";

const dueFor = (kind: ReminderKind) => (kind === "renewal" ? renewalDue : trialEndDue);

/** Organizations with a reminder due at their own time (real time plus their test clock's offset), with that offset. */
export const organizationsWithRemindersDue = (db: Executor, now: Date) =>
  organizationsWithDue(db, now, (organizationId, organizationNow) => {
    const eb = expressionBuilder<Database, "subscriptions">();
    return eb.exists(
      eb
        .selectFrom("subscriptions")
        .select("subscriptions.id")
        .where("subscriptions.organization_id", "=", organizationId)
        .where((inner) => inner.or([renewalDue(inner, organizationNow), trialEndDue(inner, organizationNow)])),
    );
  });

/** The organization's subscriptions a reminder of `kind` is due for at `now`, oldest first. */
export const subscriptionsToRemind = (db: Executor, organizationId: string, kind: ReminderKind, now: Date): Promise<SubscriptionRow[]> =>
  db
    .selectFrom("subscriptions")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where((eb) => dueFor(kind)(eb, now))
    .orderBy("created_at")
    .orderBy("id")
    .execute();
