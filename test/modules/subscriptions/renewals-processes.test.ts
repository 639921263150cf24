import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createProduct, createSubscription } from "../../helpers/factories.ts";
import { spawnProject } from "../../helpers/process.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const SUBSCRIPTIONS = 60;

describe("renewals across processes", () => {
  it(
    "renews each subscription once when two server processes sweep the same database at the same instant",
    { timeout: 120_000 },
    async () => {
      const organizationId = (await createOrganization(ctx.deps)).id;
      const plan = await createProduct(ctx.deps, organizationId, {
        product: { name: "Raced", recurring_interval: "month", recurring_interval_count: 1 },
      });
      const start = new Date("2027-03-01T00:00:00.000Z");
      const ids: string[] = [];
      for (let i = 0; i < SUBSCRIPTIONS; i += 1)
        ids.push((await createSubscription(ctx.deps, organizationId, { product: plan, now: start })).id);
      // Each customer has a saved sandbox card, as a checkout would have left.
      await sql`WITH cards AS (
        INSERT INTO payment_methods (organization_id, customer_id, processor_reference, type)
        SELECT organization_id, customer_id, 'pm_sandbox_tok_visa_' || substr(md5(id::text), 1, 24), 'card' FROM subscriptions WHERE id = ANY(${ids})
        RETURNING id, customer_id)
      UPDATE subscriptions s SET payment_method_id = cards.id FROM cards WHERE cards.customer_id = s.customer_id`.execute(ctx.deps.db);

      // Both processes start sweeping at the same wall-clock instant, at a time past the period end.
      const env = { DATABASE_URL: ctx.database.url, SWEEP_AT: "2027-04-01T00:00:01.000Z", START_AT: String(Date.now() + 10_000) };
      const processes = [spawnProject(["test/helpers/sweep-once.ts"], env), spawnProject(["test/helpers/sweep-once.ts"], env)];
      const counts = await Promise.all(processes.map(async (process) => Number((await process.waitFor(/renewed (\d+)/, 100_000))[1])));
      expect(await Promise.all(processes.map((process) => process.exited))).toEqual([0, 0]);
      expect(counts[0]! + counts[1]!).toBe(SUBSCRIPTIONS);

      const cycles = await ctx.deps.db
        .selectFrom("orders")
        .select(["subscription_id", (eb) => eb.fn.countAll<number>().as("count")])
        .where("subscription_id", "in", ids)
        .where("billing_reason", "=", "subscription_cycle")
        .groupBy("subscription_id")
        .execute();
      expect(cycles).toHaveLength(SUBSCRIPTIONS);
      expect(cycles.every((row) => Number(row.count) === 1)).toBe(true);
      const charges = await ctx.deps.db
        .selectFrom("payments")
        .innerJoin("orders", "orders.id", "payments.order_id")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("orders.subscription_id", "in", ids)
        .executeTakeFirstOrThrow();
      expect(Number(charges.count)).toBe(SUBSCRIPTIONS);
    },
  );
});
