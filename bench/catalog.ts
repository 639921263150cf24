/**
 * Catalog read paths and customer-session minting under load: a fresh embedded database (or
 * DATABASE_URL) seeded with products and customers, the real app listening on a local port, and
 * autocannon against each scenario for a fixed duration. Writes nothing but stdout.
 *   node --import tsx bench/catalog.ts [seconds-per-scenario=8]
 */
import autocannon from "autocannon";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createCustomerService } from "../src/modules/customers/customers.service.ts";
import { createAccessTokenService } from "../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { createProductService } from "../src/modules/products/products.service.ts";
import { syncProductSeats } from "../src/modules/customer-seats/customer-seats.steps.ts";
import { openRuntime } from "../src/runtime.ts";

const seconds = Math.min(Math.max(Number(process.argv[2] ?? 8), 1), 60);
const PRODUCTS = 500;
const CUSTOMERS = 5000;

const dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-bench-catalog-"));
// Under root the embedded PostgreSQL runs as the postgres user, which must reach its folder.
await chmod(dataDir, 0o755);
const config = loadConfig({
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  DATA_DIR: dataDir,
  LOG_LEVEL: "silent",
  WORKER_ENABLED: "false",
});
const runtime = await openRuntime(config, pino({ level: "silent" }));
try {
  const { deps } = runtime;
  const organization = await createOrganizationService(deps).create({ name: "Bench", slug: `bench-${Date.now()}` });
  const tokens = createAccessTokenService(deps);
  const { token } = await tokens.createOrganizationToken({
    organization_id: organization.id,
    comment: "bench",
    scopes: ["products:read", "products:write", "customers:read", "customers:write", "customer_sessions:write"],
    expires_in: null,
  });
  const principal = { kind: "organization" as const, tokenId: "bench", organizationId: organization.id, scopes: new Set<string>() };
  const products = createProductService(deps, syncProductSeats);
  const customers = createCustomerService(deps);
  const seedStarted = performance.now();
  for (let i = 0; i < PRODUCTS; i += 1) {
    await products.create(principal, {
      name: `Product ${i}`,
      recurring_interval: "month",
      prices: [
        { amount_type: "fixed", price_amount: 100 + i },
        { amount_type: "custom", price_currency: "eur", minimum_amount: 50 },
      ],
    });
  }
  for (let i = 0; i < CUSTOMERS; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => customers.create(principal, { email: `c${i + j}@bench.example`, external_id: `ext_${i + j}` })),
    );
  }
  const seedMs = Math.round(performance.now() - seedStarted);

  const app = await buildApp(deps, { logger: false });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const scenarios = [
    { name: "GET /v1/products/?limit=100 (page 1)", path: "/v1/products/?limit=100", method: "GET" as const },
    { name: "GET /v1/products/?sorting=-price_amount&page=3", path: "/v1/products/?sorting=-price_amount&page=3", method: "GET" as const },
    { name: "GET /v1/customers/?sorting=email&page=200", path: "/v1/customers/?sorting=email&page=200", method: "GET" as const },
    { name: "GET /v1/customers/external/ext_4321", path: "/v1/customers/external/ext_4321", method: "GET" as const },
    {
      name: "POST /v1/customer-sessions/",
      path: "/v1/customer-sessions/",
      method: "POST" as const,
      body: JSON.stringify({ external_customer_id: "ext_42" }),
    },
  ];
  const rows = [];
  for (const scenario of scenarios) {
    const result = await autocannon({
      url: `${address}${scenario.path}`,
      method: scenario.method,
      headers,
      body: scenario.body,
      connections: 10,
      duration: seconds,
    });
    rows.push({
      scenario: scenario.name,
      "req/s": Math.round(result.requests.average),
      "p50 ms": result.latency.p50,
      "p99 ms": result.latency.p99,
      "non-2xx": result.non2xx,
      errors: result.errors,
    });
  }
  await app.close();
  console.log(`seeded ${PRODUCTS} products and ${CUSTOMERS} customers in ${seedMs} ms; ${seconds} s per scenario, 10 connections`);
  console.table(rows);
} finally {
  await runtime.close();
  await rm(dataDir, { recursive: true, force: true });
}
