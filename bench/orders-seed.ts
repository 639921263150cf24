/**
 * Seeds the orders benchmark database: 100 organizations, each with 1,000 customers, 20 products
 * (a quarter recurring), 5 discounts and 10,000 orders (1,000,000 in all) with one item each,
 * varied statuses, creation times over a year and metadata. Everything past the organizations is
 * written by `INSERT … SELECT generate_series`, so seeding takes a minute or two, not hours.
 * A database that already holds the orders is left as it is (migrations are still applied). The
 * rows are written with triggers off, so the metrics' rollups of these organizations stay empty.
 *
 *   node --import tsx bench/orders-seed.ts
 *   DATABASE_URL=postgres://… (admin URL; default: an embedded cluster kept under the temp folder)
 *   BENCH_ORDERS_DB (database name, default bench_orders)
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { connect, type Connection } from "../src/db/connection.ts";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../src/db/embedded.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";

export const ORGANIZATIONS = 100;
export const ORDERS_PER_ORGANIZATION = 10_000;
const CUSTOMERS = 1_000;
const PRODUCTS = 20;
const DISCOUNTS = 5;
const SLUG_PREFIX = "bench-orders-";

export interface BenchDatabase {
  url: string;
  stop(): Promise<void>;
}

/** The benchmark's database, created if missing: on DATABASE_URL's server or an embedded one kept between runs. */
export async function openBenchDatabase(): Promise<BenchDatabase> {
  let embedded: EmbeddedDatabase | null = null;
  if (!process.env.DATABASE_URL) {
    const dir = path.join(os.tmpdir(), "commerce-bench-orders");
    await mkdir(dir, { recursive: true });
    // Under root, PostgreSQL runs as the `postgres` user, which must be able to enter this folder.
    await chmod(dir, 0o755);
    // Not `ephemeral`: an ephemeral cluster deletes its folder on stop, and the seed is meant to stay.
    embedded = await startEmbeddedPostgres({ dir: path.join(dir, "pg"), password: "bench" });
  }
  const adminUrl = process.env.DATABASE_URL ?? embedded!.url("postgres");
  const name = process.env.BENCH_ORDERS_DB ?? "bench_orders";
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), stop: async () => void (await embedded?.stop()) };
}

/** The seeded organizations' ids, in slug order. */
export const benchOrganizations = async (connection: Connection): Promise<string[]> =>
  (await connection.db.selectFrom("organizations").select("id").where("slug", "like", `${SLUG_PREFIX}%`).orderBy("slug").execute()).map(
    (r) => r.id,
  );

export async function seedOrders(connection: Connection, log: (line: string) => void = console.log): Promise<void> {
  await migrateToLatest(connection.db, connection.pool);
  const { count } = await connection.db
    .selectFrom("orders")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .executeTakeFirstOrThrow();
  if (Number(count) >= ORGANIZATIONS * ORDERS_PER_ORGANIZATION) {
    log(`already seeded: ${Number(count).toLocaleString("en")} orders`);
    return;
  }
  const started = Date.now();
  const step = (what: string) => log(`${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const deps = {
    db: connection.db,
    readDb: connection.db,
    config: loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent" }),
    secret: randomBytes(32).toString("hex"),
    now: () => new Date(),
  };
  const service = createOrganizationService(deps);
  for (let n = (await benchOrganizations(connection)).length; n < ORGANIZATIONS; n += 1) {
    await service.create({ name: `Bench orders ${n}`, slug: `${SLUG_PREFIX}${String(n).padStart(3, "0")}` });
  }
  step("organizations");
  const client = await connection.pool.connect();
  try {
    await client.query("BEGIN");
    // Triggers off for the seed (session_replication_role = replica), as bench/metrics-year.ts does:
    // the metrics' per-order triggers would take an advisory lock per order and per rollup key in
    // this one transaction (a million of them overflows PostgreSQL's lock table: "out of shared
    // memory"), and the rows are written consistent by construction. This bench reads orders, not
    // metrics, so the seeded organizations' metric rollups are left empty.
    await client.query("SET LOCAL session_replication_role = replica");
    // A half-finished earlier run leaves rows behind: start the catalog over.
    await client.query(`DELETE FROM order_items; DELETE FROM orders;
      DELETE FROM discounts WHERE name LIKE 'Bench %'; DELETE FROM products WHERE name LIKE 'Bench %'; DELETE FROM customers WHERE email LIKE '%@bench.example'`);
    await client.query(`CREATE TEMP TABLE bench_orgs ON COMMIT DROP AS
      SELECT id, (row_number() OVER (ORDER BY slug) - 1)::int AS n FROM organizations WHERE slug LIKE '${SLUG_PREFIX}%'`);
    await client.query(`INSERT INTO customers (organization_id, email, name, external_id, created_at)
      SELECT o.id, format('c%s-o%s@bench.example', g, o.n), format('Customer %s', g), format('ext-%s-%s', o.n, g), now() - g * interval '1 hour'
      FROM bench_orgs o CROSS JOIN generate_series(0, ${CUSTOMERS - 1}) g`);
    await client.query(`INSERT INTO products (organization_id, name, recurring_interval, recurring_interval_count)
      SELECT o.id, format('Bench product %s', lpad(g::text, 2, '0')), CASE WHEN g % 4 = 0 THEN 'month' END, CASE WHEN g % 4 = 0 THEN 1 END
      FROM bench_orgs o CROSS JOIN generate_series(0, ${PRODUCTS - 1}) g`);
    await client.query(`INSERT INTO discounts (organization_id, name, type, duration, basis_points)
      SELECT o.id, format('Bench discount %s', g), 'percentage', 'once', 1000 FROM bench_orgs o CROSS JOIN generate_series(0, ${DISCOUNTS - 1}) g`);
    step("customers, products, discounts");
    // Each catalog row numbered within its organization, so orders can pick one by arithmetic.
    await client.query(`CREATE TEMP TABLE bench_customers ON COMMIT DROP AS
      SELECT c.id, o.n, (substring(c.email from '^c([0-9]+)-'))::int AS k FROM customers c JOIN bench_orgs o ON o.id = c.organization_id`);
    await client.query(`CREATE TEMP TABLE bench_products ON COMMIT DROP AS
      SELECT p.id, o.n, (right(p.name, 2))::int AS k, p.recurring_interval IS NOT NULL AS recurring, p.name FROM products p JOIN bench_orgs o ON o.id = p.organization_id`);
    await client.query(`CREATE TEMP TABLE bench_discounts ON COMMIT DROP AS
      SELECT d.id, o.n, (right(d.name, 1))::int AS k FROM discounts d JOIN bench_orgs o ON o.id = d.organization_id`);
    for (const table of ["bench_customers", "bench_products", "bench_discounts"])
      await client.query(`CREATE INDEX ON ${table} (n, k); ANALYZE ${table}`);
    // k numbers an organization's orders. Statuses: 70% paid, 10% refunded, 5% each of the others;
    // one order in 21 has no product, one in 9 a discount; creation every 53 minutes over a year.
    await client.query(`INSERT INTO orders (organization_id, created_at, customer_id, product_id, discount_id, status, billing_reason,
        subtotal_amount, discount_amount, net_amount, tax_amount, total_amount, currency, billing_name, billing_address,
        invoice_number, description, metadata, payment_reference)
      SELECT o.id, timestamptz '2025-01-01T00:00:00Z' + s.k * interval '53 minutes' + o.n * interval '1 second', c.id, p.id, d.id,
        CASE (s.k * 13) % 20 WHEN 0 THEN 'draft' WHEN 1 THEN 'pending' WHEN 2 THEN 'void' WHEN 3 THEN 'partially_refunded' WHEN 4 THEN 'refunded' WHEN 5 THEN 'refunded' ELSE 'paid' END,
        CASE WHEN p.recurring THEN 'subscription_create' ELSE 'purchase' END,
        a.subtotal, a.discount, a.subtotal - a.discount, (a.subtotal - a.discount) / 5, (a.subtotal - a.discount) * 6 / 5, 'usd', 'Bench Buyer',
        '{"line1":"1 rue de Rivoli","line2":null,"postal_code":"75001","city":"Paris","state":null,"country":"FR"}'::jsonb,
        format('BENCH%s-%s', o.n, lpad(s.k::text, 6, '0')), coalesce(p.name, 'Custom order'),
        jsonb_build_object('tier', (ARRAY['gold', 'silver', 'bronze'])[s.k % 3 + 1], 'batch', s.k % 50), format('pay_%s_%s', o.n, s.k)
      FROM bench_orgs o
      CROSS JOIN generate_series(0, ${ORDERS_PER_ORGANIZATION - 1}) AS s(k)
      JOIN bench_customers c ON c.n = o.n AND c.k = s.k % ${CUSTOMERS}
      LEFT JOIN bench_products p ON p.n = o.n AND p.k = (s.k * 7) % ${PRODUCTS + 1}
      LEFT JOIN bench_discounts d ON d.n = o.n AND s.k % 9 = 0 AND d.k = (s.k / 9) % ${DISCOUNTS}
      CROSS JOIN LATERAL (SELECT 500 + (s.k * 37) % 100 * 100 AS subtotal, CASE WHEN s.k % 9 = 0 THEN 100 ELSE 0 END AS discount) a`);
    step("orders");
    await client.query(`INSERT INTO order_items (organization_id, order_id, created_at, label, amount, tax_amount)
      SELECT organization_id, id, created_at, description, subtotal_amount, tax_amount FROM orders`);
    step("order items");
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
  await sql`VACUUM ANALYZE customers, products, discounts, orders, order_items`.execute(connection.db);
  step("vacuum analyze");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const database = await openBenchDatabase();
  const connection = connect(database.url, 2);
  try {
    await seedOrders(connection);
  } finally {
    await connection.close();
    await database.stop();
  }
}
