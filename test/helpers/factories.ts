import type { Insertable, Updateable } from "kysely";
import { randomBytes } from "node:crypto";
import type { Deps } from "../../src/context.ts";
import { createTestContext } from "./context.ts";
import { checkoutAmount } from "../../src/modules/checkouts/checkouts.pricing.ts";
import { discountAmount } from "../../src/modules/discounts/discount-amount.ts";
import { insertCheckout } from "../../src/modules/checkouts/checkouts.repository.ts";
import { TokenPrefix, generateToken } from "../../src/values/tokens.ts";
import type { CheckoutsTable } from "../../src/modules/checkouts/checkouts.table.ts";
import { insertCustomer } from "../../src/modules/customers/customers.repository.ts";
import { createCustomerSessionService } from "../../src/modules/customers/customer-sessions.service.ts";
import type { CustomersTable } from "../../src/modules/customers/customers.table.ts";
import { insertDiscount } from "../../src/modules/discounts/discounts.repository.ts";
import type { DiscountRow, DiscountsTable } from "../../src/modules/discounts/discounts.table.ts";
import type { AvailableScope } from "../../src/modules/organizations/access-tokens.schemas.ts";
import { createAccessTokenService } from "../../src/modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "../../src/modules/organizations/organizations.service.ts";
import { insertBenefit } from "../../src/modules/benefits/benefits.repository.ts";
import { attachBenefits, insertMedia, insertPrices, insertProduct } from "../../src/modules/products/products.repository.ts";
import { licenseKeyValue } from "../../src/modules/license-keys/license-keys.service.ts";
import type { LicenseKeysTable } from "../../src/modules/license-keys/license-keys.table.ts";
import { writeOrder } from "../../src/modules/orders/order-creation.ts";
import { startSubscription } from "../../src/modules/subscriptions/subscriptions.steps.ts";
import type { SubscriptionRow } from "../../src/modules/subscriptions/subscriptions.table.ts";
import type { OrderRow, OrdersTable } from "../../src/modules/orders/orders.table.ts";
import type { InputCountryCode, StoredAddress } from "../../src/schema/address.ts";
import type { CustomerRow } from "../../src/modules/customers/customers.table.ts";
import type { ProductPriceRow, ProductPricesTable, ProductRow, ProductsTable } from "../../src/modules/products/products.table.ts";

const unique = () => randomBytes(4).toString("hex");

export async function createOrganization(deps: Deps, name = `Org ${unique()}`) {
  return createOrganizationService(deps).create({ name, slug: name.toLowerCase().replace(/[^a-z0-9]+/g, "-") });
}

export async function createOrganizationToken(deps: Deps, organizationId: string, scopes: AvailableScope[], expiresIn?: string) {
  const created = await createAccessTokenService(deps).createOrganizationToken({
    organization_id: organizationId,
    comment: "test",
    scopes,
    expires_in: expiresIn ?? null,
  });
  return created.token;
}

type RegistrationInput = { country: InputCountryCode; state?: string; scheme?: "standard" | "eu_oss"; number?: string };

/** Where the tests that price tax collect it: the EU through the One-Stop Shop, the UK, Norway, Switzerland, Australia and Canada's GST/HST. */
export const COMMON_TAX_REGISTRATIONS: readonly RegistrationInput[] = [
  { country: "IE", scheme: "eu_oss" },
  { country: "GB" },
  { country: "NO" },
  { country: "CH" },
  { country: "AU" },
  { country: "CA" },
];

/** Registers the organization to collect tax, through its legal details as the API would. */
export async function registerForTax(
  deps: Deps,
  organizationId: string,
  registrations: readonly RegistrationInput[] = COMMON_TAX_REGISTRATIONS,
) {
  await createOrganizationService(deps).updateLegalDetails(organizationId, null, {
    tax_registrations: registrations.map((registration) => ({ number: null, ...registration })),
  });
}

type PriceInput = Omit<Insertable<ProductPricesTable>, "organization_id" | "product_id">;

/**
 * The start most route test files share: a test context (its own database and app), an
 * organization of its own, and a token of that organization for each scope list given.
 */
export async function openOrganizationContext<const S extends readonly AvailableScope[][]>(...scopeLists: S) {
  const ctx = await createTestContext();
  const org = await createOrganization(ctx.deps);
  const tokens = await Promise.all(scopeLists.map((scopes) => createOrganizationToken(ctx.deps, org.id, scopes)));
  return { ctx, org, tokens: tokens as { [K in keyof S]: string } };
}

/** A token of a new organization: the "another organization" of isolation tests. */
export async function createForeignToken(deps: Deps, scopes: AvailableScope[]): Promise<string> {
  return createOrganizationToken(deps, (await createOrganization(deps)).id, scopes);
}

export interface ProductWithPrices {
  product: ProductRow;
  prices: ProductPriceRow[];
}

export async function createProduct(
  deps: Deps,
  organizationId: string,
  options: {
    product?: Partial<Insertable<ProductsTable>>;
    prices?: PriceInput[];
    benefits?: { type: string; description: string; properties?: Record<string, unknown> }[];
    medias?: number;
  } = {},
): Promise<ProductWithPrices> {
  const product = await insertProduct(deps.db, {
    organization_id: organizationId,
    name: `Product ${unique()}`,
    description: null,
    recurring_interval: null,
    recurring_interval_count: null,
    trial_interval: null,
    trial_interval_count: null,
    meter_interval: null,
    meter_interval_count: null,
    modified_at: null,
    ...options.product,
  });
  const prices = await insertPrices(
    deps.db,
    (options.prices ?? [{ amount_type: "fixed", price_amount: 2500 }]).map((price, position) => ({
      position,
      ...price,
      organization_id: organizationId,
      product_id: product.id,
    })),
  );
  const benefitIds: string[] = [];
  for (const benefit of options.benefits ?? []) {
    const row = await insertBenefit(deps.db, {
      organization_id: organizationId,
      type: benefit.type,
      description: benefit.description,
      properties: JSON.stringify(benefit.properties ?? {}),
      modified_at: null,
    });
    benefitIds.push(row.id);
  }
  await attachBenefits(deps.db, organizationId, product.id, benefitIds);
  for (let i = 0; i < (options.medias ?? 0); i += 1) {
    await insertMedia(deps.db, {
      organization_id: organizationId,
      product_id: product.id,
      name: `cover-${i}.png`,
      path: `${organizationId}/${product.id}/cover-${i}.png`,
      mime_type: "image/png",
      size: 2048 + i,
      checksum_sha256_base64: null,
      checksum_sha256_hex: null,
      public_url: `https://files.test/${product.id}/cover-${i}.png`,
      position: i,
      modified_at: null,
    });
  }
  return { product, prices };
}

export async function createDiscount(
  deps: Deps,
  organizationId: string,
  overrides: Partial<Insertable<DiscountsTable>> = {},
): Promise<DiscountRow> {
  return insertDiscount(deps.db, {
    organization_id: organizationId,
    name: `Discount ${unique()}`,
    code: null,
    type: "percentage",
    duration: "once",
    duration_in_months: null,
    basis_points: 1000,
    amounts: null,
    starts_at: null,
    ends_at: null,
    max_redemptions: null,
    modified_at: null,
    deleted_at: null,
    ...overrides,
  });
}

export async function createCustomer(deps: Deps, organizationId: string, overrides: Partial<Insertable<CustomersTable>> = {}) {
  return insertCustomer(deps.db, {
    organization_id: organizationId,
    email: `customer-${unique()}@example.com`,
    external_id: null,
    name: "Ada Customer",
    billing_name: null,
    locale: null,
    default_payment_method_id: null,
    modified_at: null,
    deleted_at: null,
    ...overrides,
  });
}

/**
 * A checkout row inserted directly, with its stored amounts computed as the service would for a
 * session with no tax yet: for tests that need a session in a given state without the API.
 */
export async function createCheckout(
  deps: Deps,
  organizationId: string,
  options: {
    products: ProductWithPrices[];
    selectedProductId?: string;
    discount?: DiscountRow | null;
    values?: Partial<Insertable<CheckoutsTable>>;
  },
) {
  const selected = options.products.find((p) => p.product.id === options.selectedProductId) ?? options.products[0] ?? null;
  const prices = selected?.prices ?? [];
  const currency = prices[0]?.price_currency ?? "usd";
  const amount = checkoutAmount(prices, { seats: options.values?.seats ?? null });
  const discount = options.discount ?? null;
  const discounted = discountAmount(discount, amount, currency);
  const now = deps.now();
  return insertCheckout(
    deps.db,
    {
      organization_id: organizationId,
      created_at: now,
      client_secret: generateToken(TokenPrefix.checkoutClientSecret),
      expires_at: new Date(now.getTime() + deps.config.checkoutTtlSeconds * 1000),
      currency,
      amount,
      discount_amount: discounted,
      net_amount: amount - discounted,
      tax_amount: null,
      tax_behavior: null,
      seats: null,
      min_seats: null,
      max_seats: null,
      allow_trial: null,
      trial_interval: null,
      trial_interval_count: null,
      trial_end: null,
      product_id: selected?.product.id ?? null,
      product_price_id: prices[0]?.id ?? null,
      discount_id: discount?.id ?? null,
      customer_id: null,
      external_customer_id: null,
      customer_name: null,
      customer_email: null,
      customer_ip_address: null,
      customer_billing_name: null,
      customer_billing_address: null,
      customer_tax_id: null,
      locale: null,
      payment_method_type: null,
      success_url: null,
      return_url: null,
      embed_origin: null,
      subscription_id: null,
      ...options.values,
    },
    options.products.map((p) => p.product.id),
  );
}

/** The token with its last character swapped for a different one (a fixed replacement could equal the original). */
export function tamperLastCharacter(token: string): string {
  return `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
}

/** A live customer session for a customer: the raw `polar_cst_` token, for portal routes. */
export async function createCustomerSessionToken(deps: Deps, customerId: string): Promise<string> {
  const session = await createCustomerSessionService(deps).create({ customer_id: customerId }, null);
  return session.token;
}

/** A `license_keys` benefit of the organization and a key of it granted to the customer. */
export async function createLicenseKey(
  deps: Deps,
  organizationId: string,
  customerId: string,
  overrides: Partial<Insertable<LicenseKeysTable>> = {},
) {
  const benefit = await insertBenefit(deps.db, {
    organization_id: organizationId,
    type: "license_keys",
    description: "License",
    properties: JSON.stringify({ prefix: "TEST" }),
    modified_at: null,
  });
  return deps.db
    .insertInto("license_keys")
    .values({
      organization_id: organizationId,
      customer_id: customerId,
      benefit_id: benefit.id,
      key: licenseKeyValue("TEST"),
      modified_at: null,
      deleted_at: null,
      limit_activations: 5,
      limit_usage: null,
      last_validated_at: null,
      expires_at: null,
      ...overrides,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface OrderOptions {
  customer?: CustomerRow;
  product?: ProductRow | null;
  discount?: DiscountRow | null;
  /** The subscription the order starts (`subscription_create`); none for a one-time purchase. */
  subscriptionId?: string;
  /** Status and any other column, written after creation. */
  values?: Partial<Updateable<OrdersTable>>;
  /** Whether a payment was taken (a receipt number is allocated only then). */
  paid?: boolean;
  /** `taxRate` defaults to the effective rate of a taxed order, none for an untaxed one. */
  amounts?: { subtotal: number; discount?: number; tax?: number; taxRate?: { basisPoints: number | null; reverseCharge: boolean } };
  billing?: { name: string | null; address: StoredAddress | null };
  /** Runs in the creation's transaction once the order is written; throwing rolls the creation back. */
  beforeCommit?: (order: OrderRow) => Promise<void>;
}

/**
 * A paid order written the way a completed checkout writes it (numbers from the real counters),
 * then adjusted with `values` for statuses and states a checkout does not produce.
 */
export async function createOrder(deps: Deps, organizationId: string, options: OrderOptions = {}): Promise<OrderRow> {
  const organization = await deps.db.selectFrom("organizations").selectAll().where("id", "=", organizationId).executeTakeFirstOrThrow();
  const customer = options.customer ?? (await createCustomer(deps, organizationId));
  const product = options.product === undefined ? (await createProduct(deps, organizationId)).product : options.product;
  const subtotal = options.amounts?.subtotal ?? 1000;
  const discount = options.amounts?.discount ?? 0;
  const tax = options.amounts?.tax ?? 0;
  const net = subtotal - discount;
  const billing = options.billing ?? {
    name: "Ada Buyer",
    address: { line1: "1 Main St", line2: null, postal_code: "75001", city: "Paris", state: null, country: "FR" },
  };
  const { order } = await deps.db.transaction().execute(async (trx) => {
    const created = await writeOrder(trx, {
      organization,
      customer,
      checkoutId: null,
      subscriptionId: options.subscriptionId ?? null,
      billingReason: options.subscriptionId ? "subscription_create" : "purchase",
      status: "paid",
      product: product ? { id: product.id, name: product.name } : { id: null, name: "Custom order" },
      lines: [],
      amounts: { subtotal, discount, net, tax, total: net + tax, currency: "usd" },
      taxRate: options.amounts?.taxRate ?? { basisPoints: tax > 0 ? Math.round((tax * 10_000) / net) : null, reverseCharge: false },
      discountId: options.discount?.id ?? null,
      billing: { ...billing, taxId: null },
      seats: null,
      metadata: {},
      customFieldData: {},
      paymentReference: options.paid === false ? null : `pay_${unique()}`,
      now: deps.now(),
    });
    await options.beforeCommit?.(created.order);
    return created;
  });
  if (!options.values) return order;
  return deps.db.updateTable("orders").set(options.values).where("id", "=", order.id).returningAll().executeTakeFirstOrThrow();
}

/**
 * A subscription of `customer` to a recurring product (a new monthly one by default), started
 * through the module's own `startSubscription`, as a checkout's completion starts one.
 */
export async function createSubscription(
  deps: Deps,
  organizationId: string,
  options: { customer?: CustomerRow; product?: ProductWithPrices; trialEnd?: Date | null; now?: Date } = {},
): Promise<SubscriptionRow> {
  const customer = options.customer ?? (await createCustomer(deps, organizationId));
  const { product, prices } =
    options.product ??
    (await createProduct(deps, organizationId, {
      product: { name: `Plan ${unique()}`, recurring_interval: "month", recurring_interval_count: 1 },
    }));
  if (!product.recurring_interval) throw new Error("createSubscription needs a recurring product");
  const amounts = prices.map((price) =>
    price.amount_type === "metered_unit" ? null : checkoutAmount([price], { customAmount: 0, seats: null }),
  );
  const amount = amounts.reduce<number>((sum, value) => sum + (value ?? 0), 0);
  return deps.db.transaction().execute((trx) =>
    startSubscription(trx, {
      organizationId,
      customerId: customer.id,
      product: {
        id: product.id,
        recurringInterval: product.recurring_interval!,
        recurringIntervalCount: product.recurring_interval_count ?? 1,
      },
      checkoutId: null,
      prices: prices.map((price, index) => ({ id: price.id, amount: amounts[index] ?? null })),
      currency: prices[0]?.price_currency ?? "usd",
      taxBehavior: null,
      amount,
      discountId: null,
      seats: null,
      trialEnd: options.trialEnd ?? null,
      metadata: {},
      customFieldData: {},
      paymentMethodId: null,
      now: options.now ?? deps.now(),
    }),
  );
}

/**
 * `count` paid orders without a product, spread over ten customers, created twenty at a time: the
 * backlog of documents the crash tests render while a server process is killed.
 */
export async function createOrderBacklog(deps: Deps, organizationId: string, count: number): Promise<OrderRow[]> {
  const customers = await Promise.all(Array.from({ length: 10 }, () => createCustomer(deps, organizationId)));
  const orders: OrderRow[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = Array.from({ length: Math.min(20, count - i) }, (_, j) =>
      createOrder(deps, organizationId, { customer: customers[(i + j) % 10]!, product: null }),
    );
    orders.push(...(await Promise.all(batch)));
  }
  return orders;
}
