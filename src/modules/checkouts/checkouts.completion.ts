import { sql } from "kysely";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { TokenPrefix, generateToken, hashToken } from "../../kit/tokens.ts";
import { grantBenefits } from "../benefits/benefit-grants.service.ts";
import { findLiveCustomer } from "../customers/customer-links.repository.ts";
import { updateCustomer } from "../customers/customers.repository.ts";
import { insertCustomerSession } from "../customers/customer-sessions.repository.ts";
import { insertCustomer } from "../customers/customers.repository.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { createPaidOrder } from "../orders/order-creation.ts";
import { readOrder } from "../orders/orders.service.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { checkTaxId } from "../tax/tax-id.ts";
import { isEuMember } from "../tax/tax.rates.ts";
import { recordWebhookEvent } from "../webhooks/webhook-events.outbox.ts";
import { pricesIn } from "./checkouts.compute.ts";
import { checkoutAmount } from "./checkouts.pricing.ts";
import type { CheckoutWithRelations } from "./checkouts.repository.ts";
import { updateCheckout } from "./checkouts.repository.ts";
import type { CheckoutStore } from "./checkouts.store.ts";

/** The buyer's tax ID as customers and orders keep it: `[number, format]`, only when verified. */
function storedTaxId(checkout: CheckoutWithRelations): [string, string] | null {
  const country = checkout.customer_billing_address?.country;
  if (!checkout.customer_tax_id || !country) return null;
  const checked = checkTaxId(checkout.customer_tax_id, country);
  if (!checked?.verified) return null;
  return [checked.value, isEuMember(country) ? "eu_vat" : `${country.toLowerCase()}_vat`];
}

/**
 * The session's customer: the preset one, else the one with its external id, else the one with
 * its email, else a new one. A transaction-scoped advisory lock on the email keeps two sessions
 * of one buyer from both creating a customer.
 */
async function linkCustomer(db: Executor, checkout: CheckoutWithRelations, now: Date): Promise<CustomerRow> {
  const org = checkout.organization_id;
  const email = checkout.customer_email ?? "";
  // Both identities are locked, in a fixed order, so sessions sharing either one queue up.
  const identities = [`email:${email.toLowerCase()}`, ...(checkout.external_customer_id ? [`external:${checkout.external_customer_id}`] : [])].sort();
  for (const identity of identities) await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${org}:${identity}`}, 0))`.execute(db);
  const existing =
    (checkout.customer_id ? await findLiveCustomer(db, org, { id: checkout.customer_id }) : undefined) ??
    (checkout.external_customer_id ? await findLiveCustomer(db, org, { externalId: checkout.external_customer_id }) : undefined) ??
    (await findLiveCustomer(db, org, { email }));
  const taxId = storedTaxId(checkout);
  const billing = {
    billing_name: checkout.customer_billing_name,
    billing_address: checkout.customer_billing_address ? JSON.stringify(checkout.customer_billing_address) : null,
    tax_id: taxId ? JSON.stringify(taxId) : null,
  };
  if (existing) {
    return updateCustomer(db, existing.id, {
      modified_at: now,
      ...(checkout.customer_billing_name ? { billing_name: checkout.customer_billing_name } : {}),
      ...(checkout.customer_billing_address ? { billing_address: billing.billing_address } : {}),
      ...(taxId ? { tax_id: billing.tax_id } : {}),
      ...(existing.external_id === null && checkout.external_customer_id ? { external_id: checkout.external_customer_id } : {}),
    });
  }
  return insertCustomer(db, {
    created_at: now,
    modified_at: null,
    organization_id: org,
    email,
    external_id: checkout.external_customer_id,
    name: checkout.customer_name,
    ...billing,
    locale: checkout.locale,
    avatar_url: null,
    default_payment_method_id: null,
    metadata: JSON.stringify(checkout.customer_metadata),
    deleted_at: null,
  });
}

/**
 * `confirmed` → `succeeded` in one transaction: customer, paid order with its numbers, benefit
 * grants, a customer session, and the webhook events. Returns the session token for the buyer.
 */
export async function completeCheckout(
  db: Executor,
  deps: Deps,
  store: CheckoutStore,
  input: { checkout: CheckoutWithRelations; organization: OrganizationRow; paymentReference: string | null },
): Promise<string> {
  const now = deps.now();
  const { checkout, organization } = input;
  const customer = await linkCustomer(db, checkout, now);
  const product = checkout.products.find((p) => p.id === checkout.product_id);
  if (!product) throw new Error(`checkout ${checkout.id} reached completion without a product`);
  const prices = pricesIn(product, checkout.currency).filter((p) => p.amount_type !== "metered_unit");
  // A trial starts with nothing charged: the first order of the subscription is for zero.
  const charged = checkout.trial_end === null;
  const taxAmount = charged ? (checkout.tax_amount ?? 0) : 0;
  const { order } = await createPaidOrder(db, {
    organization,
    customer,
    checkoutId: checkout.id,
    product: { id: product.id, name: product.name, isRecurring: product.recurring_interval !== null },
    lines: prices.map((price) => ({
      price,
      amount: charged ? checkoutAmount([price], { customAmount: checkout.amount, seats: checkout.seats }) : 0,
      label: price.amount_type === "seat_based" ? `${product.name} (${checkout.seats ?? 1} seats)` : product.name,
    })),
    amounts: charged
      ? { subtotal: checkout.amount, discount: checkout.discount_amount, net: checkout.net_amount, tax: taxAmount, total: checkout.net_amount + taxAmount, currency: checkout.currency }
      : { subtotal: 0, discount: 0, net: 0, tax: 0, total: 0, currency: checkout.currency },
    discountId: checkout.discount_id,
    billing: { name: checkout.customer_billing_name ?? checkout.customer_name, address: checkout.customer_billing_address, taxId: storedTaxId(checkout) },
    seats: checkout.seats,
    metadata: checkout.metadata,
    customFieldData: checkout.custom_field_data,
    paymentReference: input.paymentReference,
    now,
  });
  await grantBenefits(db, { customerId: customer.id, orderId: order.id, benefits: product.benefits, now });
  await updateCheckout(db, checkout.id, { status: "succeeded", customer_id: customer.id, modified_at: now });

  const token = generateToken(TokenPrefix.customerSession);
  await insertCustomerSession(db, {
    created_at: now,
    modified_at: null,
    organization_id: organization.id,
    customer_id: customer.id,
    token_hash: hashToken(deps.secret, token),
    expires_at: new Date(now.getTime() + deps.config.customerSessionTtlSeconds * 1000),
    return_url: null,
  });
  const payload = await readOrder(db, order);
  await recordWebhookEvent(db, { organizationId: organization.id, type: "order.created", data: payload, now });
  await recordWebhookEvent(db, { organizationId: organization.id, type: "order.paid", data: payload, now });
  await store.publish(db, checkout.id, "checkout.updated");
  return token;
}
