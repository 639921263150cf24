import type { Insertable, Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import type { MetricDashboardsTable } from "./metric-dashboards.table.ts";

const visible = (db: Executor, allowed: OrganizationScope) => {
  const query = db.selectFrom("metric_dashboards");
  return allowed === null ? query : query.where("organization_id", "in", allowed);
};

/** The visible dashboards, of the named organizations when given, oldest first. */
export function listDashboards(db: Executor, allowed: OrganizationScope, organizationIds: readonly string[] | null) {
  let query = visible(db, allowed).selectAll();
  if (organizationIds !== null) query = query.where("organization_id", "in", organizationIds);
  return query.orderBy("created_at").orderBy("id").execute();
}

export const findDashboard = (db: Executor, id: string, allowed: OrganizationScope) =>
  visible(db, allowed).selectAll().where("id", "=", id).executeTakeFirst();

export const insertDashboard = (db: Executor, values: Insertable<MetricDashboardsTable>) =>
  db.insertInto("metric_dashboards").values(values).returningAll().executeTakeFirstOrThrow();

export const updateDashboard = (db: Executor, id: string, values: Updateable<MetricDashboardsTable>) =>
  db.updateTable("metric_dashboards").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();

export const deleteDashboard = (db: Executor, id: string) => db.deleteFrom("metric_dashboards").where("id", "=", id).execute();
