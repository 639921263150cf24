import { Type, type Static } from "@sinclair/typebox";
import { OneOrMany } from "../../schema/pagination.ts";
import { DateTime, Nullable, Uuid4 } from "../../schema/primitives.ts";

// Input hygiene beyond the reference: a name of at most 256 characters, slugs of at most 64.
const name = Type.String({ minLength: 1, maxLength: 256, description: "Display name for the dashboard." });
const metrics = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 10,
  description: "List of metric slugs to display in this dashboard.",
});

export const MetricDashboardSchema = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    name: Type.String({ description: "Display name for the dashboard." }),
    metrics: Type.Array(Type.String(), { description: "List of metric slugs displayed in this dashboard." }),
    organization_id: Uuid4({ description: "The ID of the organization owning this dashboard." }),
  },
  { title: "MetricDashboardSchema", description: "A user-defined metrics dashboard." },
);
export type MetricDashboardSchema = Static<typeof MetricDashboardSchema>;

export const MetricDashboardCreate = Type.Object(
  {
    name,
    metrics: Type.Optional(metrics),
    organization_id: Type.Optional(
      Nullable(Uuid4(), {
        description: "The ID of the organization owning this dashboard. **Required unless you use an organization token.**",
      }),
    ),
  },
  { title: "MetricDashboardCreate", description: "Schema for creating a metrics dashboard." },
);
export type MetricDashboardCreate = Static<typeof MetricDashboardCreate>;

export const MetricDashboardUpdate = Type.Object(
  { name: Type.Optional(Nullable(name)), metrics: Type.Optional(Nullable(metrics)) },
  { title: "MetricDashboardUpdate", description: "Schema for updating a metrics dashboard." },
);
export type MetricDashboardUpdate = Static<typeof MetricDashboardUpdate>;

export const MetricDashboardListQuery = Type.Object({ organization_id: OneOrMany(Uuid4(), "Filter by organization ID.") });
export type MetricDashboardListQuery = Static<typeof MetricDashboardListQuery>;

export const MetricDashboardIdParams = Type.Object({ id: Uuid4({ description: "The metric dashboard ID." }) });
