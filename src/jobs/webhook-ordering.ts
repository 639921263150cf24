/**
 * The object each event type is about, and where its id is in the payload's `data`. Events with
 * the same ordering key reach an endpoint in the order they were recorded; events with different
 * keys do not wait for each other. Refunds are ordered with their order: `refund.created`,
 * `order.updated`, `order.refunded` and `refund.updated` of one refund change one order's totals,
 * and a receiver applies them in that order. `customer.state_changed` is about its customer.
 */
const ORDERED_BY: Record<string, { object: string; idField: string }> = {
  checkout: { object: "checkout", idField: "id" },
  customer: { object: "customer", idField: "id" },
  member: { object: "member", idField: "id" },
  order: { object: "order", idField: "id" },
  refund: { object: "order", idField: "order_id" },
  subscription: { object: "subscription", idField: "id" },
  discount: { object: "discount", idField: "id" },
  benefit: { object: "benefit", idField: "id" },
  benefit_grant: { object: "benefit_grant", idField: "id" },
  customer_seat: { object: "customer_seat", idField: "id" },
};

/**
 * `<object>:<id>`, e.g. `subscription:5b0e…` for every `subscription.*` event of that
 * subscription. A payload without the id (none is recorded so) falls back to `<object>:`, which
 * orders it with every other such event of that kind: too much order, never too little.
 */
export function orderingKeyOf(type: string, data: unknown): string {
  const prefix = type.slice(0, type.indexOf("."));
  const rule = ORDERED_BY[prefix] ?? { object: prefix, idField: "id" };
  const id = typeof data === "object" && data !== null ? (data as Record<string, unknown>)[rule.idField] : undefined;
  return `${rule.object}:${typeof id === "string" ? id : ""}`;
}
