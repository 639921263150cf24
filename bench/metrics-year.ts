/**
 * GET /v1/metrics/ for a year by day: an organization with BENCH_METRICS_ORDERS orders (default
 * 1,000,000) and a tenth as many monthly subscriptions against one with 10,000 orders and 1,000,
 * side by side in one run (requests alternate), p50/p95 and their ratio (target ≤ 1.5).
 *
 * Seeded with bare SQL: one organization, products and customers through the repositories, one
 * template subscription and order, then `generate_series` copies of them and a checkout per order
 * (succeeded) plus a fifth as many open or expired, with the metrics' triggers off
 * (session_replication_role = replica); then the rollups are rebuilt with the functions of
 * `commerce-api metrics rebuild`, timed. Reads: the order metrics (from their rollups), the
 * subscription stock and flows (from their day rollups), both by week and by month too, new
 * subscriptions (from their day rollups, and per request for comparison), the checkouts (from
 * theirs) and every metric (the costs read the events: none are seeded).
 *
 *   node --import tsx bench/metrics-year.ts     (BENCH_METRICS_ORDERS, BENCH_REQUESTS default 60, BENCH_METRICS_EVERY=0)
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { Kysely, PostgresDialect, sql, type CompiledQuery } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import type { Database } from "../src/db/database.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { inTransaction } from "./floor-rows.ts";
import { percentile } from "./statistics.ts";
import { rebuildCheckoutRollups } from "../src/modules/metrics/metric-checkout-rollups.repository.ts";
import { rebuildOrderRollups, rebuildSubscriptionRollups } from "../src/modules/metrics/metric-rollups.repository.ts";
import { writeOrder } from "../src/modules/orders/order-creation.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { startSubscription } from "../src/modules/subscriptions/subscriptions.steps.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";
import { seedCustomers, seedProducts } from "./fixtures.ts";

interface PlanNode {
  "Relation Name"?: string;
  "CTE Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Shared Hit Blocks": number;
  "Shared Read Blocks": number;
  Plans?: PlanNode[];
}

const LARGE = Number(process.env.BENCH_METRICS_ORDERS ?? 1_000_000);
const SMALL = 10_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60);
const YEAR = "2026-01-01T00:00:00Z";

const database = await benchDatabase("metrics-year");
const connection = connect(database.url, 4);
const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent" });
// The metrics statement of the last request (it alone begins with WITH), for its plan after the timings.
let lastMetricsStatement: CompiledQuery | null = null;
const readDb = new Kysely<Database>({
  dialect: new PostgresDialect({ pool: connection.pool }),
  log: (event) => {
    if (event.level === "query" && event.query.sql.startsWith("WITH")) lastMetricsStatement = event.query;
  },
});
const deps = { db: connection.db, readDb, config, secret: randomBytes(32).toString("hex"), now: () => new Date(YEAR) };

/** Every column of a table but those given, as a list for INSERT and for SELECT from a template row. */
async function columnsBut(table: string, overridden: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name = ${table} ORDER BY ordinal_position`.execute(connection.db);
  return rows.map((row) => row.column_name).filter((name) => !overridden.includes(name));
}

/**
 * `orders` orders over 2026 for the organization: a tenth of them subscriptions started through the
 * year (half on each of two monthly products), each renewed monthly to the year's end, and
 * one-time orders for the rest. Returns the seconds taken.
 */
async function seed(organizationId: string, orders: number): Promise<number> {
  const started = performance.now();
  const customers = await seedCustomers(connection.db, organizationId, 200);
  const products = await seedProducts(connection.db, organizationId, 3);
  await sql`UPDATE products SET recurring_interval = 'month', recurring_interval_count = 1 WHERE id IN (${products[0]}, ${products[1]})`.execute(
    connection.db,
  );
  const price = await connection.db
    .selectFrom("product_prices")
    .select("id")
    .where("product_id", "=", products[0]!)
    .executeTakeFirstOrThrow();
  const organization = await connection.db
    .selectFrom("organizations")
    .selectAll()
    .where("id", "=", organizationId)
    .executeTakeFirstOrThrow();
  const template = await connection.db.transaction().execute(async (trx) => {
    const subscription = await startSubscription(trx, {
      organizationId,
      customerId: customers[0]!.id,
      product: { id: products[0]!, recurringInterval: "month", recurringIntervalCount: 1 },
      checkoutId: null,
      prices: [{ id: price.id, amount: 1500 }],
      currency: "usd",
      taxBehavior: null,
      amount: 1500,
      discountId: null,
      seats: null,
      trialEnd: null,
      metadata: {},
      customFieldData: {},
      paymentMethodId: null,
      now: new Date(YEAR),
    });
    const { order } = await writeOrder(trx, {
      organization,
      customer: customers[0]!,
      checkoutId: null,
      subscriptionId: subscription.id,
      billingReason: "subscription_create",
      status: "paid",
      product: { id: products[0]!, name: "Monthly" },
      lines: [],
      amounts: { subtotal: 1500, discount: 0, net: 1500, tax: 0, total: 1500, currency: "usd" },
      taxRate: { basisPoints: null, reverseCharge: false },
      discountId: null,
      billing: { name: "Buyer", address: null, taxId: null },
      seats: null,
      metadata: {},
      customFieldData: {},
      paymentReference: null,
      now: new Date(YEAR),
    });
    return { subscriptionId: subscription.id, orderId: order.id };
  });

  const subscriptions = Math.floor(orders / 10);
  const customerIds = customers.map((customer) => customer.id);
  await inTransaction(connection.pool, async (client) => {
    // The rollups are rebuilt afterwards: no trigger per copied row.
    await client.query("SET LOCAL session_replication_role = replica");
    const subColumns = await columnsBut("subscriptions", [
      "id",
      "customer_id",
      "product_id",
      "created_at",
      "started_at",
      "current_period_start",
      "current_period_end",
      "anchor_day",
    ]);
    await client.query(
      `INSERT INTO subscriptions (id, customer_id, product_id, created_at, started_at, current_period_start, current_period_end, anchor_day, ${subColumns.join(", ")})
       SELECT gen_random_uuid(), ($2::uuid[])[1 + i % 200], ($3::uuid[])[1 + i % 2], at, at, at, at + interval '1 month', extract(day FROM at)::int,
         ${subColumns.map((column) => `t.${column}`).join(", ")}
       FROM subscriptions t, generate_series(1, $4::int) i,
         LATERAL (SELECT $5::timestamptz + (i::float8 / $4) * interval '365 days' AS at) a
       WHERE t.id = $1`,
      [template.subscriptionId, customerIds, products.slice(0, 2), subscriptions, YEAR],
    );
    const orderColumns = await columnsBut("orders", [
      "id",
      "customer_id",
      "product_id",
      "subscription_id",
      "created_at",
      "billing_reason",
      "net_amount",
      "subtotal_amount",
      "total_amount",
      "invoice_number",
      "receipt_number",
    ]);
    const copyOrders = (source: string) =>
      `INSERT INTO orders (id, customer_id, product_id, subscription_id, created_at, billing_reason, net_amount, subtotal_amount, total_amount, invoice_number, receipt_number, ${orderColumns.join(", ")})
       SELECT gen_random_uuid(), s.customer_id, s.product_id, s.subscription_id, s.at, s.reason, s.amount, s.amount, s.amount, NULL, NULL,
         ${orderColumns.map((column) => `t.${column}`).join(", ")}
       FROM orders t, (${source}) s WHERE t.id = $1`;
    // Each subscription's first order and its monthly renewals to the end of the year.
    const renewals = await client.query(
      copyOrders(`SELECT sub.customer_id, sub.product_id, sub.id AS subscription_id, sub.started_at + k * interval '1 month' AS at,
          CASE k WHEN 0 THEN 'subscription_create' ELSE 'subscription_cycle' END AS reason, 1500 AS amount
        FROM subscriptions sub, generate_series(0, 11) k
        WHERE sub.organization_id = $2 AND sub.id <> $3 AND sub.started_at + k * interval '1 month' < $4::timestamptz + interval '1 year'`),
      [template.orderId, organizationId, template.subscriptionId, YEAR],
    );
    const oneTime = Math.max(0, orders - (renewals.rowCount ?? 0));
    await client.query(
      copyOrders(`SELECT ($2::uuid[])[1 + i % 200] AS customer_id, $3::uuid AS product_id, NULL::uuid AS subscription_id,
          $4::timestamptz + (i::float8 / $5) * interval '365 days' AS at, 'purchase' AS reason, 2500 + i % 7 * 100 AS amount
        FROM generate_series(1, $5::int) i`),
      [template.orderId, customerIds, products[2], YEAR, oneTime],
    );
    // The checkouts: one succeeded per order (viewed a few minutes before it), and a fifth as many
    // again left open or expired over the year, two in three of them viewed.
    const checkouts = (source: string) =>
      `INSERT INTO checkouts (organization_id, product_id, customer_id, created_at, opened_at, status, client_secret, expires_at, currency, amount, net_amount)
       SELECT $1::uuid, s.product_id, s.customer_id, s.created, s.opened, s.status, 'bench_' || gen_random_uuid(), s.created + interval '1 hour', 'usd', 2500, 2500
       FROM (${source}) s`;
    await client.query(
      checkouts(`SELECT o.product_id, o.customer_id, o.created_at - interval '5 minutes' AS created, o.created_at - interval '4 minutes' AS opened,
          'succeeded' AS status FROM orders o WHERE o.organization_id = $1`),
      [organizationId],
    );
    await client.query(
      checkouts(`SELECT $2::uuid AS product_id, NULL::uuid AS customer_id, at AS created,
          CASE WHEN i % 3 <> 0 THEN at + interval '1 minute' END AS opened, CASE WHEN i % 2 = 0 THEN 'open' ELSE 'expired' END AS status
        FROM generate_series(1, $4::int) i, LATERAL (SELECT $3::timestamptz + (i::float8 / $4) * interval '365 days' AS at) a`),
      [organizationId, products[2], YEAR, Math.floor(orders / 5)],
    );
  });
  return (performance.now() - started) / 1000;
}

try {
  await migrateToLatest(connection.db, connection.pool);
  const organizations = createOrganizationService(deps);
  const large = await organizations.create({ name: "Large", slug: `large-${database.name}` });
  const small = await organizations.create({ name: "Small", slug: `small-${database.name}` });
  const seconds = { large: await seed(large.id, LARGE), small: await seed(small.id, SMALL) };
  const counted = await sql<{ organization_id: string; orders: string; subscriptions: string; checkouts: string }>`
    SELECT o.organization_id, count(*) AS orders, (SELECT count(*) FROM subscriptions s WHERE s.organization_id = o.organization_id) AS subscriptions,
      (SELECT count(*) FROM checkouts c WHERE c.organization_id = o.organization_id) AS checkouts
    FROM orders o GROUP BY 1`.execute(connection.db);
  const size = (id: string) => counted.rows.find((row) => row.organization_id === id)!;
  for (const [which, id] of [
    ["large", large.id],
    ["small", small.id],
  ] as const) {
    const { orders, subscriptions, checkouts } = size(id);
    console.log(
      `seeded ${which}: ${orders} orders, ${subscriptions} subscriptions, ${checkouts} checkouts in ${seconds[which].toFixed(1)} s`,
    );
  }
  for (const [which, organization] of [
    ["large", large],
    ["small", small],
  ] as const) {
    const started = performance.now();
    const rebuilt = await rebuildOrderRollups(connection.db, organization.id);
    console.log(
      `rebuild ${which}: ${rebuilt.orders} orders into ${rebuilt.rows} hourly and ${rebuilt.dayRows} day rollup rows in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const subscriptionsStarted = performance.now();
    const subscriptions = await rebuildSubscriptionRollups(connection.db, organization.id);
    console.log(
      `rebuild ${which}: ${subscriptions.facts} subscription facts into ${subscriptions.dayRows} day rollup rows and ${subscriptions.newDayRows} new-subscription day rows in ${((performance.now() - subscriptionsStarted) / 1000).toFixed(1)} s`,
    );
    const checkoutsStarted = performance.now();
    const checkouts = await rebuildCheckoutRollups(connection.db, organization.id);
    console.log(
      `rebuild ${which}: checkouts into ${checkouts.hourRows} hourly and ${checkouts.dayRows} day rollup rows in ${((performance.now() - checkoutsStarted) / 1000).toFixed(1)} s`,
    );
  }
  await sql`ANALYZE`.execute(connection.db);

  const services = buildServices(deps);
  const app = await buildApp(deps, { logger: false, services });
  await app.ready();
  const token = async (organizationId: string) =>
    (
      await createAccessTokenService(deps).createOrganizationToken({
        organization_id: organizationId,
        comment: "bench",
        scopes: ["metrics:read"],
        expires_in: null,
      })
    ).token;
  const tokens = { large: await token(large.id), small: await token(small.id) };
  const ORDER_METRICS = [
    "orders",
    "revenue",
    "net_revenue",
    "cumulative_revenue",
    "average_order_value",
    "new_subscriptions_revenue",
    "renewed_subscriptions",
    "renewed_subscriptions_revenue",
    "one_time_products_revenue",
  ];
  const STOCK_METRICS = [
    "active_subscriptions",
    "committed_subscriptions",
    "monthly_recurring_revenue",
    "committed_monthly_recurring_revenue",
  ];
  const FLOW_METRICS = ["churned_subscriptions", "canceled_subscriptions", "canceled_subscriptions_too_expensive"];
  const CHECKOUT_METRICS = ["checkouts", "succeeded_checkouts", "checkouts_conversion"];
  const reads = {
    "order metrics": `start_date=2026-01-01&end_date=2026-12-31&interval=day&timezone=Europe/Berlin&${ORDER_METRICS.map((slug) => `metrics=${slug}`).join("&")}`,
    // The subscription stock, from its day rollups.
    "subscription stock": `start_date=2026-01-01&end_date=2026-12-31&interval=day&timezone=Europe/Berlin&${STOCK_METRICS.map((slug) => `metrics=${slug}`).join("&")}`,
    // The subscription flows, from the same day rollups.
    "subscription flows": `start_date=2026-01-01&end_date=2026-12-31&interval=day&timezone=Europe/Berlin&${FLOW_METRICS.map((slug) => `metrics=${slug}`).join("&")}`,
    // New subscriptions from their per-day rollups, and per request (a billing type filter: every
    // product of the bench is recurring, so the same answer from every subscription).
    "new subscriptions": "start_date=2026-01-01&end_date=2026-12-31&interval=day&timezone=Europe/Berlin&metrics=new_subscriptions",
    "new subscriptions, per request":
      "start_date=2026-01-01&end_date=2026-12-31&interval=day&timezone=Europe/Berlin&metrics=new_subscriptions&billing_type=recurring",
    // Weeks and months of the same year: the subscription families and the new subscriptions from
    // their day rollups (each bound a local midnight), the order metrics from theirs (the periods
    // across a DST change at their first midnight's offset, the edge hours from the hourly rollups).
    ...Object.fromEntries(
      (["week", "month"] as const).flatMap((interval) => [
        [
          `subscription stock, flows and churn rate by ${interval}`,
          `start_date=2026-01-01&end_date=2026-12-31&interval=${interval}&timezone=Europe/Berlin&${[...STOCK_METRICS, ...FLOW_METRICS, "churn_rate"].map((slug) => `metrics=${slug}`).join("&")}`,
        ],
        [
          `new subscriptions by ${interval}`,
          `start_date=2026-01-01&end_date=2026-12-31&interval=${interval}&timezone=Europe/Berlin&metrics=new_subscriptions`,
        ],
        [
          `new subscriptions by ${interval}, per request`,
          `start_date=2026-01-01&end_date=2026-12-31&interval=${interval}&timezone=Europe/Berlin&metrics=new_subscriptions&billing_type=recurring`,
        ],
        [
          `order metrics by ${interval}`,
          `start_date=2026-01-01&end_date=2026-12-31&interval=${interval}&timezone=Europe/Berlin&${ORDER_METRICS.map((slug) => `metrics=${slug}`).join("&")}`,
        ],
      ]),
    ),
    // The checkouts, from their day rollups.
    checkouts: `start_date=2026-01-01&end_date=2026-12-31&interval=day&timezone=Europe/Berlin&${CHECKOUT_METRICS.map((slug) => `metrics=${slug}`).join("&")}`,
    // BENCH_METRICS_EVERY=0 leaves it out: at a million orders its live families take minutes a request.
    ...(process.env.BENCH_METRICS_EVERY === "0"
      ? {}
      : { "every metric": "start_date=2026-01-01&end_date=2026-12-31&interval=day&timezone=Europe/Berlin" }),
  };
  /**
   * What one request's statement reads, whatever the machine's load: rows out of each table's and
   * CTE's scans (all loops) and shared buffers touched, from EXPLAIN (ANALYZE, BUFFERS) in the request's zone.
   */
  const planOf = async (which: "large" | "small", query: string) => {
    await timeOne(which, query);
    const statement = lastMetricsStatement;
    if (statement === null) throw new Error("no metrics statement was captured");
    let plan: { Plan: PlanNode; "Execution Time": number } | undefined;
    let entries = "";
    await inTransaction(connection.pool, async (client) => {
      // Entries read per table, from the backend's statistics not yet reported (they can hold earlier
      // transactions' too, hence a difference around the statement): exact, where the plan's rows
      // are per-loop averages, rounded (a range read once per period shows 0 when most read none).
      const counts = async () =>
        new Map(
          (
            await client.query<{ relname: string; n: string }>(
              `SELECT t.relname, t.seq_tup_read + coalesce((SELECT sum(pg_stat_get_xact_tuples_returned(i.indexrelid)) FROM pg_index i WHERE i.indrelid = t.relid), 0) AS n
               FROM pg_stat_xact_user_tables t WHERE t.relname LIKE 'metric%' OR t.relname IN ('subscriptions', 'orders', 'checkouts')`,
            )
          ).rows.map((row) => [row.relname, Number(row.n)]),
        );
      await client.query("SELECT set_config('TimeZone', 'Europe/Berlin', true)");
      const before = await counts();
      const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode; "Execution Time": number }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`,
        [...statement.parameters],
      );
      plan = rows[0]!["QUERY PLAN"][0];
      entries = [...(await counts())]
        .map(([table, n]) => [table, n - (before.get(table) ?? 0)] as const)
        .filter(([, n]) => n > 0)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([table, n]) => `${table} ${n.toLocaleString("en")}`)
        .join(", ");
    });
    if (plan === undefined) throw new Error("no plan");
    const read = new Map<string, number>();
    const walk = (node: PlanNode) => {
      // Tables, and the CTEs scanned once per period (a family's rows joined to every period).
      const source = node["Relation Name"] ?? (node["CTE Name"] === undefined ? undefined : `CTE ${node["CTE Name"]}`);
      if (source !== undefined) read.set(source, (read.get(source) ?? 0) + node["Actual Rows"] * node["Actual Loops"]);
      node.Plans?.forEach(walk);
    };
    walk(plan.Plan);
    const rows = [...read].map(([table, n]) => `${table} ${n.toLocaleString("en")}`).join(", ");
    const buffers = plan.Plan["Shared Hit Blocks"] + plan.Plan["Shared Read Blocks"];
    return `rows read: ${rows}; entries read: ${entries}; ${buffers.toLocaleString("en")} buffers; execution ${plan["Execution Time"].toFixed(1)} ms`;
  };
  const timeOne = async (which: "large" | "small", query: string) => {
    const started = performance.now();
    const response = await app.inject({
      method: "GET",
      url: `/v1/metrics/?${query}`,
      headers: { authorization: `Bearer ${tokens[which]}` },
    });
    const ms = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${which}: ${response.statusCode} ${response.body}`);
    return ms;
  };
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" / ")}`,
  );
  for (const [label, query] of Object.entries(reads)) {
    const requests = label === "every metric" ? Math.ceil(REQUESTS / 3) : REQUESTS;
    for (let i = 0; i < 5; i += 1) for (const which of ["large", "small"] as const) await timeOne(which, query);
    const times = { large: [] as number[], small: [] as number[] };
    for (let i = 0; i < requests; i += 1) {
      // Alternate which goes first, so drift in the machine's load weighs on both alike.
      for (const which of i % 2 === 0 ? (["large", "small"] as const) : (["small", "large"] as const))
        times[which].push(await timeOne(which, query));
    }
    const p95 = { large: percentile(times.large, 95), small: percentile(times.small, 95) };
    console.log(`${label}${label.includes(" by ") ? "" : ", a year by day"}, ${requests} requests each:`);
    for (const which of ["large", "small"] as const) {
      console.log(`  ${which.padEnd(5)} p50 ${percentile(times[which], 50).toFixed(1)} ms   p95 ${p95[which].toFixed(1)} ms`);
    }
    console.log(`  p95 ratio large / small: ${(p95.large / p95.small).toFixed(2)} (target ≤ 1.5)`);
    for (const which of ["large", "small"] as const) console.log(`  ${which.padEnd(5)} ${await planOf(which, query)}`);
  }
  console.log(
    `load average after: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" / ")}`,
  );
  await app.close();
} finally {
  await connection.db.destroy();
  await database.stop();
}
