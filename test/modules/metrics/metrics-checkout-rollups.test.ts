import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildCheckoutRollups } from "../../../src/modules/metrics/metric-checkout-rollups.repository.ts";
import { metricSources } from "../../../src/modules/metrics/metrics.repository.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { columnsBesides } from "../../helpers/table-columns.ts";
import { createCheckout, createOrganization, createOrganizationToken, createProduct } from "../../helpers/factories.ts";

// The checkouts family by day from its rollups (docs/decisions.md, "Metrics: checkout day rollups")
// against the checkouts themselves: the same numbers on a history written through the triggers
// (inserts, first views, successes, a view moved, deletes), across the DST days of New York,
// Berlin and Auckland, in the zones at both ends of the offsets, and after a rebuild.

let ctx: TestContext;
let token: string;
let organizationId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  organizationId = (await createOrganization(ctx.deps)).id;
  token = await createOrganizationToken(ctx.deps, organizationId, ["metrics:read"]);
  const product = await createProduct(ctx.deps, organizationId);
  const template = await createCheckout(ctx.deps, organizationId, { products: [product] });
  const kept = await columnsBesides(ctx.deps.db, "checkouts", ["id", "client_secret", "created_at", "opened_at", "status"]);
  // 300 checkouts from 20 March to 10 April and 20 October to 5 November 2026 (the DST changes of
  // New York, Berlin and Auckland inside), created before views were recorded (counted at their
  // creation unless viewed) — a few after it, counted only once viewed.
  await sql`INSERT INTO checkouts (id, client_secret, created_at, opened_at, status, ${sql.join(kept.map((column) => sql.ref(column)))})
    SELECT gen_random_uuid(), 'secret_' || i || '_' || t.client_secret, s.at,
      CASE WHEN i % 3 = 0 THEN s.at + (i % 50) * interval '1 hour' END,
      CASE WHEN i % 4 = 0 THEN 'succeeded' WHEN i % 4 = 1 THEN 'expired' ELSE 'open' END,
      ${sql.join(kept.map((column) => sql.ref(`t.${column}`)))}
    FROM checkouts t, generate_series(1, 300) i,
      LATERAL (SELECT CASE WHEN i % 29 = 0 THEN now() + interval '1 day'
        WHEN i % 2 = 0 THEN '2026-03-20'::timestamptz + (i * 7919 % 1400) * interval '23 minutes'
        ELSE '2026-10-20'::timestamptz + (i * 7919 % 1100) * interval '23 minutes' END AS at) s
    WHERE t.id = ${template.id}`.execute(ctx.deps.db);
  // And one an hour, made at its 5th minute (left alone by the changes below) and viewed at its
  // 20th, around each DST change of the zones read: the hours a 23- or 25-hour day gains or loses.
  await sql`INSERT INTO checkouts (id, client_secret, created_at, opened_at, status, ${sql.join(kept.map((column) => sql.ref(column)))})
    SELECT gen_random_uuid(), 'hourly_' || h || '_' || t.client_secret, h + interval '5 minutes', h + interval '20 minutes',
      CASE WHEN extract(hour FROM h)::int % 3 = 0 THEN 'succeeded' ELSE 'open' END,
      ${sql.join(kept.map((column) => sql.ref(`t.${column}`)))}
    FROM checkouts t, unnest(${["2026-03-07", "2026-03-28", "2026-04-03", "2026-10-24"]}::date[]) d,
      generate_series(d::timestamptz, d::timestamptz + interval '71 hours', interval '1 hour') h
    WHERE t.id = ${template.id}`.execute(ctx.deps.db);
  const update = (set: ReturnType<typeof sql>, where: ReturnType<typeof sql>) =>
    sql`UPDATE checkouts SET ${set} WHERE organization_id = ${organizationId} AND id <> ${template.id} AND ${where}`.execute(ctx.deps.db);
  // First views, successes, a success taken back, views moved across local midnights, deletes.
  await update(sql`opened_at = created_at + interval '5 hours'`, sql`opened_at IS NULL AND created_at::time > '20:00'`);
  await update(sql`status = 'succeeded'`, sql`status = 'open' AND extract(minute FROM created_at)::int % 3 = 0`);
  await update(sql`status = 'failed'`, sql`status = 'succeeded' AND extract(minute FROM created_at)::int % 7 = 0`);
  await update(
    sql`opened_at = opened_at + interval '3 hours'`,
    sql`opened_at IS NOT NULL AND extract(hour FROM created_at)::int % 2 = 0 AND client_secret LIKE 'secret%'`,
  );
  await update(sql`opened_at = coalesce(opened_at, now()) + interval '2 days', status = 'succeeded'`, sql`created_at > now()`);
  await sql`DELETE FROM checkouts WHERE organization_id = ${organizationId} AND extract(minute FROM created_at)::int % 11 = 0`.execute(
    ctx.deps.db,
  );
});
afterAll(() => ctx.close());

const read = async (startDate: string, endDate: string, timezone: string, checkoutsFromRollups: boolean) =>
  (
    await metricSources(ctx.deps.db, {
      startDate,
      endDate,
      interval: "day",
      timezone,
      families: new Set(["checkouts"] as const),
      filter: { organizationIds: [organizationId], productIds: null, billingTypes: null, customerIds: null, currency: "usd" },
      ordersFromRollups: true,
      checkoutsFromRollups,
    })
  ).map((period) => [period.timestamp, period.values["checkouts"], period.values["succeeded_checkouts"]]);

const WINDOWS = [
  ["2026-03-01", "2026-04-20", "America/New_York"],
  ["2026-03-20", "2026-04-12", "Europe/Berlin"],
  ["2026-10-18", "2026-11-10", "Europe/Berlin"],
  ["2026-03-25", "2026-04-15", "Pacific/Auckland"],
  ["2026-10-20", "2026-11-06", "America/Sao_Paulo"],
  ["2026-03-19", "2026-04-12", "Pacific/Kiritimati"],
  ["2026-10-19", "2026-11-06", "Etc/GMT+12"],
  ["2026-03-19", "2026-12-31", "UTC"],
] as const;

describe("checkouts from their day rollups", () => {
  it.each(WINDOWS)("answers %s to %s by day in %s as the checkouts do", async (startDate, endDate, timezone) => {
    const expected = await read(startDate, endDate, timezone, false);
    expect(expected.filter(([, checkouts]) => Number(checkouts) > 1).length).toBeGreaterThan(5);
    expect(expected.some(([, , succeeded]) => Number(succeeded) > 0)).toBe(true);
    expect(await read(startDate, endDate, timezone, true)).toEqual(expected);
  });

  it("reads a half-hour zone from the checkouts and a whole-hour one from the rollups, through the API", async () => {
    for (const timezone of ["Asia/Kolkata", "Europe/Berlin"]) {
      const response = await ctx.request({
        method: "GET",
        url: `/v1/metrics/?start_date=2026-03-20&end_date=2026-04-10&interval=day&timezone=${timezone}&metrics=checkouts&metrics=checkouts_conversion`,
        token,
      });
      expect(response.statusCode, response.body).toBe(200);
      const periods = response.json<{ periods: Record<string, number | string>[] }>().periods;
      expect(
        periods.map((period) => [
          period["timestamp"],
          period["checkouts"],
          Number(period["checkouts_conversion"]) * Number(period["checkouts"]),
        ]),
      ).toEqual(
        (await read("2026-03-20", "2026-04-10", timezone, false)).map(([at, checkouts, succeeded]) => [
          at,
          checkouts,
          expect.closeTo(Number(succeeded), 9),
        ]),
      );
    }
  });

  it("comes back to the same numbers and rows after a rebuild", async () => {
    const rowsOf = async (table: "metric_checkout_day_rollups" | "metric_checkout_hour_rollups") =>
      (
        await sql<Record<string, string>>`SELECT ${table === "metric_checkout_day_rollups" ? sql`utc_offset, day::text` : sql`hour::text`},
          sum(checkouts) AS checkouts, sum(succeeded) AS succeeded
        FROM ${sql.table(table)} WHERE organization_id = ${organizationId}
        GROUP BY 1${table === "metric_checkout_day_rollups" ? sql`, 2` : sql``}
        -- Rows whose additions were all taken back again are kept by the triggers, not written by the rebuild.
        HAVING (sum(checkouts), sum(succeeded)) <> (0, 0)
        ORDER BY 1${table === "metric_checkout_day_rollups" ? sql`, 2` : sql``}`.execute(ctx.deps.db)
      ).rows;
    const kept = await Promise.all(WINDOWS.map(([startDate, endDate, timezone]) => read(startDate, endDate, timezone, true)));
    const keptDays = await rowsOf("metric_checkout_day_rollups");
    const keptHours = await rowsOf("metric_checkout_hour_rollups");
    expect(keptDays.length).toBeGreaterThan(27 * 20);
    await sql`UPDATE metric_checkout_day_rollups SET checkouts = checkouts + 1 WHERE organization_id = ${organizationId}`.execute(
      ctx.deps.db,
    );
    await sql`DELETE FROM metric_checkout_hour_rollups WHERE organization_id = ${organizationId}`.execute(ctx.deps.db);
    expect(await read(...WINDOWS[1], true)).not.toEqual(kept[1]);
    expect(await rebuildCheckoutRollups(ctx.deps.db, organizationId)).toEqual({ hourRows: keptHours.length, dayRows: keptDays.length });
    expect(await rowsOf("metric_checkout_day_rollups")).toEqual(keptDays);
    expect(await rowsOf("metric_checkout_hour_rollups")).toEqual(keptHours);
    expect(await Promise.all(WINDOWS.map(([startDate, endDate, timezone]) => read(startDate, endDate, timezone, true)))).toEqual(kept);
  });
});
