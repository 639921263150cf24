import { sql } from "kysely";
import type { Db } from "../../db/database.ts";

/**
 * Rewrites the checkout rollups of one organization (null: all) from the checkouts the family
 * counts (the view metric_checkout_rows, migrations/2026-12-04T0400_metric_checkout_rollups.ts):
 * the hours grouped from the rows in one insert, the days from the hours at every whole-hour offset
 * in another, all in slot 0. The exclusive lock holds back the triggers of concurrent writes
 * meanwhile; a write that waits on it adds its difference to the rows rebuilt without it.
 */
export async function rebuildCheckoutRollups(db: Db, organizationId: string | null): Promise<{ hourRows: number; dayRows: number }> {
  return db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE metric_checkout_hour_rollups, metric_checkout_day_rollups IN EXCLUSIVE MODE`.execute(trx);
    const scope = organizationId === null ? sql`true` : sql`organization_id = ${organizationId}::uuid`;
    await sql`DELETE FROM metric_checkout_hour_rollups WHERE ${scope}`.execute(trx);
    await sql`DELETE FROM metric_checkout_day_rollups WHERE ${scope}`.execute(trx);
    const hours = await sql`INSERT INTO metric_checkout_hour_rollups (organization_id, hour, slot, checkouts, succeeded)
      SELECT organization_id, date_bin('1 hour', at, '2000-01-01T00:00:00Z'), 0, count(*), count(*) FILTER (WHERE status = 'succeeded')
      FROM metric_checkout_rows WHERE ${scope} GROUP BY 1, 2`.execute(trx);
    const days = await sql`INSERT INTO metric_checkout_day_rollups (organization_id, utc_offset, day, slot, checkouts, succeeded)
      SELECT organization_id, k, ((hour AT TIME ZONE 'UTC') + k * interval '1 hour')::date, 0, sum(checkouts), sum(succeeded)
      FROM metric_checkout_hour_rollups CROSS JOIN generate_series(-12, 14) k WHERE ${scope} GROUP BY 1, 2, 3`.execute(trx);
    return { hourRows: Number(hours.numAffectedRows ?? 0), dayRows: Number(days.numAffectedRows ?? 0) };
  });
}
