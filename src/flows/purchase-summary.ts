import type { Deps } from "../context.ts";
import type { Executor } from "../db/database.ts";
import { grantsOfOrder } from "../modules/benefits/benefits.steps.ts";
import type { GrantedBenefit } from "../modules/emails/emails.steps.ts";
import { grantedFilesByBenefit } from "../modules/files/files.steps.ts";
import { keysByIds } from "../modules/license-keys/license-keys.steps.ts";
import { findOrderOfCheckout, itemsByOrder, orderDocumentLinks } from "../modules/orders/orders.steps.ts";
import type { OrderItemRow, OrderRow } from "../modules/orders/orders.table.ts";

// What a paid order gave its buyer, read the same way for its email and for the checkout's page
// after the payment, so the two show the same: the benefits, the license keys in full, the documents.

/**
 * The benefits the order granted, in the product's order, each license key in full and each file
 * the customer holds with a link that outlives the email's reading (`/downloads/…`).
 */
export async function grantedBenefits(
  db: Executor,
  deps: Pick<Deps, "secret" | "config">,
  order: Pick<OrderRow, "id" | "customer_id">,
  benefits: readonly { id: string; description: string }[],
): Promise<GrantedBenefit[]> {
  if (benefits.length === 0) return [];
  const grants = await grantsOfOrder(db, order.id);
  const files = await grantedFilesByBenefit(db, { secret: deps.secret, baseUrl: deps.config.publicBaseUrl }, order.customer_id, grants);
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
        files: files.get(benefit.id) ?? [],
      };
    });
}

export interface CheckoutPurchase {
  order: OrderRow;
  items: readonly OrderItemRow[];
  benefits: readonly GrantedBenefit[];
  documents: { receiptUrl: string | null; invoiceUrl: string | null };
}

/**
 * The purchase a succeeded checkout made: its order, lines, granted benefits and document links.
 * Null while there is no order (a session marked succeeded without one, or not yet written).
 */
export async function purchaseOfCheckout(
  db: Executor,
  deps: Deps,
  checkout: { id: string; benefits: readonly { id: string; description: string }[] },
): Promise<CheckoutPurchase | null> {
  const order = await findOrderOfCheckout(db, checkout.id);
  if (!order) return null;
  return {
    order,
    items: (await itemsByOrder(db, [order])).get(order.id) ?? [],
    benefits: await grantedBenefits(db, deps, order, checkout.benefits),
    documents: orderDocumentLinks(deps, order, deps.now()),
  };
}
