import { sql } from "kysely";
import type { TestContext } from "../../helpers/context.ts";
import {
  createCheckout,
  createCustomer,
  createDiscount,
  createOrder,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
} from "../../helpers/factories.ts";
import type { OrderRow, OrderStatus } from "../../../src/modules/orders/orders.table.ts";

/**
 * One organization's orders, varied along every filter and sort key of GET /v1/orders/, plus what
 * a test needs to know to compute the expected answer independently of the SQL.
 */
export interface OrderWorld {
  orgId: string;
  otherOrgId: string;
  readToken: string;
  otherToken: string;
  customers: { alice: { id: string; email: string }; bob: { id: string; email: string }; carol: { id: string; email: string } };
  products: { book: { id: string; name: string }; plan: { id: string; name: string } };
  discounts: { zeta: { id: string; name: string }; eta: { id: string; name: string } };
  checkoutIds: [string, string];
  subscriptionIds: [string, string];
  /** The organization's orders, oldest first; index i was created at `start + i + 1` seconds. */
  orders: OrderRow[];
  foreign: OrderRow;
  start: Date;
}

interface Spec {
  customer: "alice" | "bob" | "carol";
  product: "book" | "plan" | null;
  discount?: "zeta" | "eta";
  status: OrderStatus;
  net: number;
  metadata?: Record<string, string | number | boolean>;
  checkout?: 0 | 1;
  subscription?: 0 | 1;
}

// Statuses, amounts, customers and names all repeat somewhere, so ties exercise the id tiebreaker.
const SPECS: Spec[] = [
  { customer: "alice", product: "book", status: "paid", net: 1000, metadata: { tier: "gold", seats: 5 } },
  { customer: "bob", product: "plan", discount: "zeta", status: "paid", net: 3000, metadata: { tier: "silver" }, subscription: 0 },
  {
    customer: "carol",
    product: "book",
    discount: "eta",
    status: "refunded",
    net: 2000,
    metadata: { tier: "gold", vip: true },
    checkout: 0,
  },
  { customer: "alice", product: null, status: "pending", net: 500, checkout: 1 },
  { customer: "bob", product: "plan", status: "partially_refunded", net: 3000, metadata: { tier: "bronze" }, subscription: 1 },
  { customer: "alice", product: "book", discount: "zeta", status: "draft", net: 1500, subscription: 0 },
  { customer: "bob", product: "book", status: "void", net: 700, metadata: { tier: "gold" } },
];

export async function createOrderWorld(ctx: TestContext): Promise<OrderWorld> {
  const { deps } = ctx;
  const orgId = (await createOrganization(deps)).id;
  const otherOrgId = (await createOrganization(deps)).id;
  const customers = {
    alice: await createCustomer(deps, orgId, { email: "alice@orders.example", external_id: "ext-alice" }),
    bob: await createCustomer(deps, orgId, { email: "bob@orders.example", external_id: "ext-bob" }),
    carol: await createCustomer(deps, orgId, { email: "carol@orders.example", external_id: "ext-carol" }),
  };
  const book = await createProduct(deps, orgId, { product: { name: "Book" } });
  const plan = await createProduct(deps, orgId, {
    product: { name: "Annual plan", recurring_interval: "month", recurring_interval_count: 1 },
  });
  const products = { book: book.product, plan: plan.product };
  const discounts = { zeta: await createDiscount(deps, orgId, { name: "Zeta" }), eta: await createDiscount(deps, orgId, { name: "Eta" }) };
  const checkoutIds: [string, string] = [
    (await createCheckout(deps, orgId, { products: [book] })).id,
    (await createCheckout(deps, orgId, { products: [book] })).id,
  ];
  const subscriptionIds: [string, string] = [
    (await createSubscription(deps, orgId, { customer: customers.bob, product: plan })).id,
    (await createSubscription(deps, orgId, { customer: customers.bob, product: plan })).id,
  ];
  const start = new Date("2026-03-01T12:00:00.000Z");
  const orders: OrderRow[] = [];
  for (const [i, spec] of SPECS.entries()) {
    orders.push(
      await createOrder(deps, orgId, {
        customer: customers[spec.customer],
        product: spec.product === null ? null : products[spec.product],
        discount: spec.discount ? discounts[spec.discount] : null,
        amounts: { subtotal: spec.net },
        ...(spec.subscription === undefined ? {} : { subscriptionId: subscriptionIds[spec.subscription] }),
        values: {
          status: spec.status,
          created_at: new Date(start.getTime() + (i + 1) * 1000),
          metadata: JSON.stringify(spec.metadata ?? {}),
          checkout_id: spec.checkout === undefined ? null : checkoutIds[spec.checkout],
          // A draft has no invoice number yet: it sorts with the nulls.
          ...(spec.status === "draft" ? { invoice_number: null } : {}),
        },
      }),
    );
  }
  // A deleted customer keeps their orders, but no longer answers to their external id.
  await deps.db.updateTable("customers").set({ deleted_at: new Date() }).where("id", "=", customers.carol.id).execute();
  const foreign = await createOrder(deps, otherOrgId, { values: { metadata: JSON.stringify({ tier: "gold" }) } });
  return {
    orgId,
    otherOrgId,
    readToken: await createOrganizationToken(deps, orgId, ["orders:read"]),
    otherToken: await createOrganizationToken(deps, otherOrgId, ["orders:read"]),
    customers,
    products,
    discounts,
    checkoutIds,
    subscriptionIds,
    orders,
    foreign,
    start,
  };
}

/** Sets `created_at` seconds after the world's start, as an ISO string for query parameters. */
export const at = (world: OrderWorld, seconds: number) => new Date(world.start.getTime() + seconds * 1000).toISOString();

/** The `order.updated` events recorded for one order, with their payload's data. */
export async function orderUpdatedEvents(ctx: TestContext, orderId: string): Promise<{ data: Record<string, unknown> }[]> {
  const rows = await ctx.deps.db
    .selectFrom("webhook_events")
    .select("payload")
    .where("type", "=", "order.updated")
    .where(sql<boolean>`payload->'data'->>'id' = ${orderId}`)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => row.payload as { data: Record<string, unknown> });
}
