import { randomBytes } from "node:crypto";
import { loadConfig } from "../src/config.ts";
import type { Connection } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices, type Services } from "../src/services.ts";
import { seedProducts } from "./fixtures.ts";

// The launch the checkout benches sell (bench:checkout-rush, bench:checkout-confirm-statements):
// one organization in the sandbox, one product, and a buyer's open checkout at a time.

/** Migrates the bench's database and opens the launch: the app's dependencies, the organization, its services and product. */
export async function openLaunch(connection: Connection, databaseName: string) {
  await migrateToLatest(connection.db, connection.pool);
  const secret = randomBytes(32).toString("hex");
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "silent", ENVIRONMENT: "sandbox", SECRET_KEY: secret });
  const deps = { db: connection.db, readDb: connection.db, config, secret, now: () => new Date() };
  const org = await createOrganizationService(deps).create({ name: "Bench launch", slug: `bench-${databaseName}` });
  const [productId] = await seedProducts(connection.db, org.id, 1);
  return { deps, org, services: buildServices(deps), productId: productId! };
}

/** An open checkout of one product for the `index`-th buyer of a launch, with the details a confirm needs. */
export function openBuyerCheckout(services: Services, organizationId: string, productId: string, index: number) {
  return services.checkouts.create(
    {
      products: [productId],
      customer_email: `buyer${index}@bench.example`,
      customer_name: `Buyer ${index}`,
      customer_billing_address: { country: "US", line1: "1 Main St", city: "New York", postal_code: "10001", state: "US-NY" },
    },
    [organizationId],
  );
}
