import { sql } from "kysely";
import type { Db } from "../db/database.ts";

export interface WebhookBacklogRow {
  /** `enabled` or `disabled` (a disabled endpoint's events wait for it to be enabled again). */
  endpoint_state: string;
  pending: number;
  oldest_age_seconds: number;
}

/** Undelivered events of live endpoints, enabled and disabled apart (the partial index on pending rows answers it). */
export async function webhookBacklog(db: Db): Promise<WebhookBacklogRow[]> {
  const { rows } = await sql<WebhookBacklogRow>`
    SELECT CASE WHEN e.enabled THEN 'enabled' ELSE 'disabled' END AS endpoint_state, count(*)::int AS pending,
      extract(epoch FROM now() - min(ee.created_at))::float8 AS oldest_age_seconds
    FROM webhook_endpoint_events ee JOIN webhook_endpoints e ON e.id = ee.endpoint_id
    WHERE ee.status = 'pending' AND e.deleted_at IS NULL
    GROUP BY 1`.execute(db);
  return rows;
}

export interface EndpointBacklogRow {
  endpoint_id: string;
  pending: number;
  oldest_age_seconds: number;
}

/** The `limit` enabled endpoints whose oldest undelivered event is the oldest: the ones to look at first. */
export async function mostLateEndpoints(db: Db, limit: number): Promise<EndpointBacklogRow[]> {
  const { rows } = await sql<EndpointBacklogRow>`
    SELECT ee.endpoint_id, count(*)::int AS pending, extract(epoch FROM now() - min(ee.created_at))::float8 AS oldest_age_seconds
    FROM webhook_endpoint_events ee JOIN webhook_endpoints e ON e.id = ee.endpoint_id
    WHERE ee.status = 'pending' AND e.enabled AND e.deleted_at IS NULL
    GROUP BY ee.endpoint_id
    ORDER BY oldest_age_seconds DESC, ee.endpoint_id
    LIMIT ${limit}`.execute(db);
  return rows;
}
