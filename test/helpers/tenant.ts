import { sql } from "kysely";
import { randomBytes } from "node:crypto";
import type { IdSource } from "./schema-arbitraries.ts";
import type { TestContext } from "./context.ts";
import {
  createCheckout,
  createCustomer,
  createDiscount,
  createLicenseKey,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "./factories.ts";
import { createMember, createMemberSessionToken, enableMembers } from "../modules/customers/member-helpers.ts";
import { AvailableScopes } from "../../src/modules/organizations/access-tokens.schemas.ts";
import { recordProcessorDispute } from "../../src/modules/disputes/disputes.steps.ts";
import type { OrderRow } from "../../src/modules/orders/orders.table.ts";
import { recordPayment } from "../../src/modules/payments/payments.steps.ts";

/** A customer of a tenant with its owner member's session (accepted by every portal route). */
export interface TenantCustomer {
  readonly id: string;
  readonly externalId: string;
  readonly memberExternalId: string;
  readonly session: string;
}

/**
 * An organization with one of most things the API serves: for tests that walk every route with real
 * ids (the OpenAPI fuzz, the authorization matrix).
 */
export interface Tenant {
  readonly organizationId: string;
  /** An organization token holding every scope. */
  readonly token: string;
  /** The customer owning the orders, subscription, license key and grants. */
  readonly customer: TenantCustomer;
  /** A second customer of the same organization, owning nothing. */
  readonly otherCustomer: TenantCustomer;
  readonly checkoutClientSecret: string;
  readonly checkoutLinkClientSecret: string;
}

const unique = () => randomBytes(4).toString("hex");

async function teamCustomer(ctx: TestContext, organizationId: string): Promise<TenantCustomer> {
  const externalId = `ext-${unique()}`;
  const customer = await createCustomer(ctx.deps, organizationId, { type: "team", external_id: externalId });
  const memberExternalId = `member-${unique()}`;
  const owner = await createMember(ctx.deps, customer, "owner", { external_id: memberExternalId });
  return {
    id: customer.id,
    externalId,
    memberExternalId,
    session: await createMemberSessionToken(ctx.deps, customer.id, owner.id),
  };
}

/** Creates a resource through the API as the tenant's token would; the body must be accepted. */
async function created(ctx: TestContext, token: string, url: string, payload: object): Promise<Record<string, unknown>> {
  const response = await ctx.request({ method: "POST", url, token, payload });
  if (response.statusCode >= 300) throw new Error(`seeding ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** The order's payment under a processor charge, and a dispute of that charge as the processor's inbox records it. */
async function disputedPayment(ctx: TestContext, order: OrderRow): Promise<void> {
  const now = ctx.deps.now();
  const reference = `ch_tenant_${unique()}`;
  const { organization_id: organizationId, customer_id: customerId, total_amount: amount, currency } = order;
  await ctx.deps.db.transaction().execute(async (trx) => {
    await recordPayment(trx, {
      organizationId,
      customerId,
      orderId: order.id,
      methodId: null,
      trigger: "purchase",
      amount,
      currency,
      now,
      reference,
    });
    const event = { paymentReference: reference, processorDisputeId: `dp_tenant_${unique()}`, status: "needs_response" as const };
    await recordProcessorDispute(
      trx,
      ctx.deps.config.email,
      { ...event, amount, currency, reason: "fraudulent", evidenceDueBy: null, processorEventCreatedAt: now },
      now,
    );
  });
}

export async function seedTenant(ctx: TestContext): Promise<Tenant> {
  const { deps } = ctx;
  const organization = await createOrganization(deps);
  const organizationId = organization.id;
  await enableMembers(deps, organizationId);
  // Drafting orders is behind a feature the operator switches on (docs/decisions.md): on, so the
  // drafts' routes answer past the feature gate.
  await deps.db
    .updateTable("organizations")
    .set({ feature_settings: sql<string>`feature_settings || '{"off_session_charges_enabled": true}'::jsonb` })
    .where("id", "=", organizationId)
    .execute();
  const token = await createOrganizationToken(deps, organizationId, [...AvailableScopes]);
  const customer = await teamCustomer(ctx, organizationId);
  const otherCustomer = await teamCustomer(ctx, organizationId);
  const customerRow = await deps.db.selectFrom("customers").selectAll().where("id", "=", customer.id).executeTakeFirstOrThrow();

  const product = await createProduct(deps, organizationId, {
    benefits: [{ type: "custom", description: "Support", properties: { note: null } }],
  });
  await createDiscount(deps, organizationId, { code: `CODE${unique().toUpperCase()}` });
  const order = await createOrder(deps, organizationId, { customer: customerRow, product: product.product });
  await disputedPayment(ctx, order);
  const subscription = await createSubscription(deps, organizationId, { customer: customerRow });
  // A seat of the subscription and a wallet of the customer: rows the seat and wallet routes name.
  await deps.db
    .insertInto("customer_seats")
    .values({ organization_id: organizationId, subscription_id: subscription.id, status: "claimed", customer_id: customer.id })
    .execute();
  await deps.db
    .insertInto("wallets")
    .values({ organization_id: organizationId, customer_id: customer.id, type: "usage", currency: "usd" })
    .execute();
  await createLicenseKey(deps, organizationId, customer.id);
  const checkout = await createCheckout(deps, organizationId, { products: [product] });
  await created(ctx, token, "/v1/custom-fields/", { type: "text", slug: `field-${unique()}`, name: "Field", properties: {} });
  await created(ctx, token, "/v1/webhooks/endpoints", { url: "https://example.com/hook", format: "raw", events: [] });
  await created(ctx, token, "/v1/meters/", {
    name: "Calls",
    filter: { conjunction: "and", clauses: [] },
    aggregation: { func: "count" },
  });
  await created(ctx, token, "/v1/events/ingest", { events: [{ name: "call", external_customer_id: customer.externalId }] });
  const link = await created(ctx, token, "/v1/checkout-links/", { payment_processor: "stripe", products: [product.product.id] });
  await created(ctx, token, "/v1/metrics/dashboards", { name: "Growth", metrics: ["orders"] });
  await created(ctx, token, "/v1/files/", {
    service: "downloadable",
    name: "setup.zip",
    mime_type: "application/zip",
    size: 10,
    upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 }] },
  });
  return {
    organizationId,
    token,
    customer,
    otherCustomer,
    checkoutClientSecret: checkout.client_secret,
    checkoutLinkClientSecret: String(link.client_secret),
  };
}

/** Tables whose rows a path segment or field names, where the table is not the name with `_` (and an `s`). */
const TABLE_OF_NAME: Record<string, string> = {
  endpoints: "webhook_endpoints",
  dashboards: "metric_dashboards",
  seat_id: "customer_seats",
  "payment-methods": "payment_methods",
};

/** The table a collection segment of a path or a field name refers to (`license-keys`, `customer_id`, `products`). */
function tableOfName(name: string): string {
  const mapped = TABLE_OF_NAME[name];
  if (mapped) return mapped;
  const base = name.replace(/-/g, "_").replace(/_ids?$/, "");
  return base.endsWith("s") ? base : `${base}s`;
}

/** Tables of the public schema with an `id` and the given column. */
async function tablesWith(ctx: TestContext, column: string): Promise<string[]> {
  const tables = await sql<{ table_name: string }>`
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.columns i ON i.table_schema = c.table_schema AND i.table_name = c.table_name AND i.column_name = 'id'
    WHERE c.table_schema = 'public' AND c.column_name = ${column}
    ORDER BY 1`.execute(ctx.database.db);
  return tables.rows.map((row) => row.table_name);
}

/**
 * The tenant's real ids by the name a request generator asks for (see `IdSource`): a path
 * segment (`orders`, `license-keys`), a field (`customer_id`), or a qualified path parameter
 * (`client/client_secret`, `external/external_id`). Read from the database once seeded: one row of
 * each table holding the tenant's rows.
 */
export async function tenantIdSource(ctx: TestContext, tenant: Tenant): Promise<IdSource> {
  const byTable = new Map<string, string>([["organizations", tenant.organizationId]]);
  for (const table of await tablesWith(ctx, "organization_id")) {
    const row = await sql<{
      id: string;
    }>`SELECT id::text FROM ${sql.table(table)} WHERE organization_id = ${tenant.organizationId} LIMIT 1`.execute(ctx.database.db);
    if (row.rows[0]) byTable.set(table, row.rows[0].id);
  }
  // The customer owning the orders and grants, whichever customer row comes first.
  byTable.set("customers", tenant.customer.id);
  const { slug } = await ctx.database.db
    .selectFrom("organizations")
    .select("slug")
    .where("id", "=", tenant.organizationId)
    .executeTakeFirstOrThrow();
  const named: Record<string, string> = {
    "organizations/slug": slug,
    "client/client_secret": tenant.checkoutClientSecret,
    "checkout-links/client_secret": tenant.checkoutLinkClientSecret,
    "external/external_id": tenant.customer.externalId,
    "members/member_external_id": tenant.customer.memberExternalId,
  };
  return (name) => named[name] ?? byTable.get(tableOfName(name.slice(name.lastIndexOf("/") + 1)));
}

/**
 * Every id of the rows whose `column` holds `value` (`organization_id` or `customer_id`), across
 * the public schema: what another tenant must never be answered.
 */
export async function rowIdsWhere(ctx: TestContext, column: "organization_id" | "customer_id", value: string): Promise<Set<string>> {
  const ids = new Set([value]);
  for (const table of await tablesWith(ctx, column)) {
    const rows = await sql<{ id: string }>`SELECT id::text FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}`.execute(
      ctx.database.db,
    );
    for (const row of rows.rows) ids.add(row.id);
  }
  return ids;
}
