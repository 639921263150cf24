import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { ResourceNotFound, valueError } from "../../http/errors.ts";
import { asList } from "../../schema/pagination.ts";
import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import * as repo from "./metric-dashboards.repository.ts";
import type {
  MetricDashboardCreate,
  MetricDashboardListQuery,
  MetricDashboardSchema,
  MetricDashboardUpdate,
} from "./metric-dashboards.schemas.ts";
import type { MetricDashboardRow } from "./metric-dashboards.table.ts";
import { unknownMetricSlugs } from "./metric-definitions.ts";

const toDashboard = (row: MetricDashboardRow): MetricDashboardSchema => ({
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  id: row.id,
  name: row.name,
  metrics: row.metrics,
  organization_id: row.organization_id,
});

/** Slugs that name no metric are refused, with the message GET /v1/metrics/ gives (docs/decisions.md). */
function assertKnownSlugs(slugs: readonly string[]): void {
  const unknown = unknownMetricSlugs(slugs);
  if (unknown.length) throw valueError(["body", "metrics"], `Invalid metric slugs: ${unknown.join(", ")}`, slugs);
}

/** Saved dashboards of metrics: `{name, metrics}` per organization, hard-deleted. */
export function createMetricDashboardService(deps: Deps) {
  async function visible(id: string, allowed: OrganizationScope): Promise<MetricDashboardRow> {
    const row = await repo.findDashboard(deps.db, id, allowed);
    if (!row) throw new ResourceNotFound();
    return row;
  }

  return {
    list: async (query: MetricDashboardListQuery, allowed: OrganizationScope): Promise<MetricDashboardSchema[]> =>
      (await repo.listDashboards(deps.readDb, allowed, asList(query.organization_id) ?? null)).map(toDashboard),

    get: async (id: string, allowed: OrganizationScope): Promise<MetricDashboardSchema> => toDashboard(await visible(id, allowed)),

    async create(principal: Principal, input: MetricDashboardCreate): Promise<MetricDashboardSchema> {
      const metrics = input.metrics ?? [];
      assertKnownSlugs(metrics);
      const organization = await targetOrganization(deps.db, principal, input.organization_id);
      const row = await repo.insertDashboard(deps.db, {
        organization_id: organization.id,
        name: input.name,
        metrics,
        created_at: deps.now(),
        modified_at: null,
      });
      return toDashboard(row);
    },

    /** Applies the fields sent; a null field changes nothing (neither may be emptied). */
    async update(id: string, input: MetricDashboardUpdate, allowed: OrganizationScope): Promise<MetricDashboardSchema> {
      if (input.metrics) assertKnownSlugs(input.metrics);
      const current = await visible(id, allowed);
      const changes = {
        ...(input.name != null ? { name: input.name } : {}),
        ...(input.metrics != null ? { metrics: input.metrics } : {}),
      };
      if (!Object.keys(changes).length) return toDashboard(current);
      return toDashboard(await repo.updateDashboard(deps.db, current.id, { ...changes, modified_at: deps.now() }));
    },

    async delete(id: string, allowed: OrganizationScope): Promise<void> {
      await repo.deleteDashboard(deps.db, (await visible(id, allowed)).id);
    },
  };
}
export type MetricDashboardService = ReturnType<typeof createMetricDashboardService>;
