/**
 * Rows the benches seed, written through the repositories as the app would write them: customers,
 * products with a price, a license-key benefit and an image, license keys, and paid orders as a
 * completed checkout writes them. Shared by the benches that need them (and by the soak, which
 * needs them all).
 */
import type { Kysely } from "kysely";
import type { Database, Executor } from "../src/db/database.ts";
import { insertBenefit } from "../src/modules/benefits/benefits.repository.ts";
import { insertCustomer } from "../src/modules/customers/customers.repository.ts";
import type { CustomerRow } from "../src/modules/customers/customers.table.ts";
import { licenseKeyValue } from "../src/modules/license-keys/license-keys.service.ts";
import type { LicenseKeyRow } from "../src/modules/license-keys/license-keys.table.ts";
import { writeOrder } from "../src/modules/orders/order-creation.ts";
import type { OrganizationRow } from "../src/modules/organizations/organizations.table.ts";
import { attachBenefits, insertMedia, insertPrices, insertProduct } from "../src/modules/products/products.repository.ts";

/** `count` customers, `c<i>@bench.example`. */
export async function seedCustomers(db: Executor, organizationId: string, count: number): Promise<CustomerRow[]> {
  const customers: CustomerRow[] = [];
  for (let i = 0; i < count; i += 1) {
    customers.push(
      await insertCustomer(db, {
        organization_id: organizationId,
        email: `c${i}@bench.example`,
        external_id: null,
        name: `Customer ${i}`,
        billing_name: null,
        locale: null,
        default_payment_method_id: null,
        modified_at: null,
        deleted_at: null,
      }),
    );
  }
  return customers;
}

const licenseKeyBenefit = (db: Executor, organizationId: string) =>
  insertBenefit(db, {
    organization_id: organizationId,
    type: "license_keys",
    description: "Key",
    properties: JSON.stringify({ prefix: "B" }),
    modified_at: null,
  });

/** `count` one-time products of one fixed price each, with a license-key benefit and an image; their ids. */
export async function seedProducts(db: Executor, organizationId: string, count: number): Promise<string[]> {
  const products: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const product = await insertProduct(db, {
      organization_id: organizationId,
      name: `Product ${i}`,
      description: "A product",
      recurring_interval: null,
      recurring_interval_count: null,
      trial_interval: null,
      trial_interval_count: null,
      meter_interval: null,
      meter_interval_count: null,
      modified_at: null,
    });
    await insertPrices(db, [
      { organization_id: organizationId, product_id: product.id, amount_type: "fixed", price_amount: 1000 * (i + 1), position: 0 },
    ]);
    const benefit = await licenseKeyBenefit(db, organizationId);
    await attachBenefits(db, organizationId, product.id, [benefit.id]);
    await insertMedia(db, {
      organization_id: organizationId,
      product_id: product.id,
      name: "c.png",
      path: "p/c.png",
      mime_type: "image/png",
      size: 2048,
      checksum_sha256_base64: null,
      checksum_sha256_hex: null,
      public_url: "https://files.bench/c.png",
      position: 0,
      modified_at: null,
    });
    products.push(product.id);
  }
  return products;
}

/** One license key (prefix `B`, at most 3 activations) per customer, all of one benefit. */
export async function seedLicenseKeys(db: Executor, organizationId: string, customers: readonly CustomerRow[]): Promise<LicenseKeyRow[]> {
  const benefit = await licenseKeyBenefit(db, organizationId);
  const keys: LicenseKeyRow[] = [];
  for (const customer of customers) {
    keys.push(
      await db
        .insertInto("license_keys")
        .values({
          organization_id: organizationId,
          customer_id: customer.id,
          benefit_id: benefit.id,
          key: licenseKeyValue("B"),
          modified_at: null,
          deleted_at: null,
          limit_activations: 3,
          limit_usage: null,
          last_validated_at: null,
          expires_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
  }
  return keys;
}

/** `count` paid orders, written the way a completed checkout writes them, with billing details; their ids. */
export async function seedPaidOrders(
  db: Kysely<Database>,
  organization: OrganizationRow,
  customers: readonly CustomerRow[],
  count: number,
): Promise<string[]> {
  const orderIds: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const { order } = await db.transaction().execute((trx) =>
      writeOrder(trx, {
        organization,
        customer: customers[i % customers.length]!,
        checkoutId: null,
        subscriptionId: null,
        billingReason: "purchase",
        status: "paid",
        product: { id: null, name: `Bench product ${i % 7}` },
        lines: [],
        amounts: { subtotal: 10_000, discount: 1_000, net: 9_000, tax: 1_800, total: 10_800, currency: "eur" },
        taxRate: { basisPoints: 2_000, reverseCharge: false },
        discountId: null,
        billing: {
          name: `Buyer ${i} GmbH`,
          address: { line1: `${i} Hauptstrasse`, line2: null, postal_code: "10115", city: "Berlin", state: null, country: "DE" },
          taxId: ["DE123456789", "eu_vat"],
        },
        seats: null,
        metadata: {},
        customFieldData: {},
        paymentReference: `pay_${i}`,
        now: new Date(),
      }),
    );
    orderIds.push(order.id);
  }
  return orderIds;
}
