import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { grantsOfOrder } from "../modules/benefits/benefits.steps.ts";
import type { CustomerRow } from "../modules/customers/customers.table.ts";
import { recordEmail, renderOrderConfirmation, type OrderConfirmation } from "../modules/emails/emails.steps.ts";
import { keysByIds } from "../modules/license-keys/license-keys.steps.ts";
import type { OrderItemRow, OrderRow } from "../modules/orders/orders.table.ts";
import type { OrganizationRow } from "../modules/organizations/organizations.table.ts";

/** The benefits the order granted, in the product's order, each license key in full. */
async function grantedBenefits(
  db: Executor,
  orderId: string,
  benefits: readonly { id: string; description: string }[],
): Promise<OrderConfirmation["benefits"]> {
  const grants = await grantsOfOrder(db, orderId);
  const keyIdOf = new Map(grants.map((grant) => [grant.benefit_id, grant.properties.license_key_id]));
  const keyIds = [...keyIdOf.values()].filter((id): id is string => typeof id === "string");
  const keys = new Map((await keysByIds(db, keyIds)).map((key) => [key.id, key]));
  return benefits
    .filter((benefit) => keyIdOf.has(benefit.id))
    .map((benefit) => {
      const keyId = keyIdOf.get(benefit.id);
      const key = typeof keyId === "string" ? keys.get(keyId) : undefined;
      return {
        description: benefit.description,
        licenseKey: key ? { key: key.key, activationLimit: key.limit_activations, expiresAt: key.expires_at } : null,
      };
    });
}

/**
 * The customer's order confirmation, written to the outbox in the transaction that paid the order
 * (after its grants, which it lists): one per order, whatever replays the payment.
 */
export async function writeOrderConfirmation(
  db: Executor,
  deps: Deps,
  paid: {
    organization: OrganizationRow;
    customer: CustomerRow;
    order: OrderRow;
    items: readonly OrderItemRow[];
    benefits: readonly { id: string; description: string }[];
    /** The checkout's language, else the customer's (as the order's documents choose it). */
    locale: string | null;
    now: Date;
  },
): Promise<void> {
  const { organization, customer, order } = paid;
  // A checkout without an email (an API-made customer may lack one) has nobody to write to.
  if (!customer.email) return;
  const rendered = renderOrderConfirmation({
    organization: { name: organization.name, logoUrl: organization.avatar_url },
    recipient: customer.email,
    locale: paid.locale,
    description: order.description,
    receiptNumber: order.receipt_number,
    paidAt: paid.now,
    items: paid.items.map((item) => ({ label: item.label, amount: item.amount })),
    amounts: {
      subtotal: order.subtotal_amount,
      discount: order.discount_amount,
      tax: order.tax_amount,
      total: order.total_amount,
      currency: order.currency,
    },
    benefits: await grantedBenefits(db, order.id, paid.benefits),
  });
  await recordEmail(db, deps.config.email, {
    organization,
    audience: { to: "customer", kind: "receipt", setting: "order_confirmation" },
    dedupeKey: `order_confirmation:${order.id}`,
    template: "order_confirmation",
    locale: paid.locale,
    recipient: customer.email,
    rendered,
    now: paid.now,
  });
}
