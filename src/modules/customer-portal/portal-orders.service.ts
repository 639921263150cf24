import type { Executor } from "../../db/database.ts";
import { asList, type Page } from "../../schema/pagination.ts";
import { toOrderFields, toSubscriptionFields } from "../orders/orders.mapper.ts";
import type { OrderVisibility } from "../orders/orders.steps.ts";
import { itemsByOrder, type OrderPresenter, type OrderService } from "../orders/orders.steps.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { toCheckoutProduct } from "../products/products.mapper.ts";
import { listProducts } from "../products/products.steps.ts";
import { subscriptionsByIds } from "../subscriptions/subscriptions.steps.ts";
import type { CustomerOrder, CustomerOrderListQuery, CustomerOrderUpdate } from "./portal-orders.schemas.ts";
import { toCustomerOrganization } from "../organizations/organizations.mapper.ts";
import type { portalCustomerOf } from "./portal-session.ts";

type PortalCustomer = ReturnType<typeof portalCustomerOf>;

const distinct = (values: readonly (string | null)[]): string[] => [...new Set(values.filter((value): value is string => value !== null))];

/** The orders as their customer sees them: each product with its prices, public benefits, medias and seller. */
export const presentCustomerOrders: OrderPresenter<CustomerOrder> = async (db: Executor, rows) => {
  const productIds = distinct(rows.map((row) => row.product_id));
  const organizationIds = distinct(rows.map((row) => row.organization_id));
  // The rows are already scoped to the session, so their products, subscriptions and sellers need no further scope.
  const subscriptions = new Map(
    (await subscriptionsByIds(db, distinct(rows.map((row) => row.subscription_id)))).map((row) => [row.id, row]),
  );
  const [items, products, organizations] = await Promise.all([
    itemsByOrder(db, rows),
    productIds.length
      ? listProducts(db, null, { ids: productIds, organizationIds: null, benefitIds: null, visibility: null }, [], 0, productIds.length)
      : [],
    Promise.all(organizationIds.map((id) => findOrganization(db, id, null))),
  ]);
  const sellers = new Map(
    organizations.filter((row): row is OrganizationRow => row !== undefined).map((row) => [row.id, toCustomerOrganization(row)]),
  );
  const productsById = new Map(
    products.map((product) => [product.id, { ...toCheckoutProduct(product), organization: sellers.get(product.organization_id)! }]),
  );
  return rows.map((row) => ({
    ...toOrderFields(row, items.get(row.id) ?? []),
    product: row.product_id ? (productsById.get(row.product_id) ?? null) : null,
    subscription: row.subscription_id ? toSubscriptionFields(subscriptions.get(row.subscription_id)!) : null,
  }));
};

/** A session sees its own customer's orders in its own organization, and nothing else. */
const visibleTo = (session: PortalCustomer): OrderVisibility => ({ allowed: [session.organizationId], customerId: session.customerId });

/** The portal's order routes: the organization-side listing and update, seen through the customer's view. */
export function createPortalOrderService(orders: OrderService) {
  return {
    list(query: CustomerOrderListQuery, session: PortalCustomer): Promise<Page<CustomerOrder>> {
      const filter = {
        ...visibleTo(session),
        productIds: asList(query.product_id),
        billingTypes: asList(query.product_billing_type),
        subscriptionIds: asList(query.subscription_id),
        query: query.query,
      };
      return orders.pageAs(filter, query, presentCustomerOrders);
    },

    get: (id: string, session: PortalCustomer): Promise<CustomerOrder> => orders.getAs(id, visibleTo(session), presentCustomerOrders),

    update: (id: string, input: CustomerOrderUpdate, session: PortalCustomer): Promise<CustomerOrder> =>
      orders.updateAs(id, input, visibleTo(session), async (trx, row) => (await presentCustomerOrders(trx, [row]))[0]!),
  };
}
export type PortalOrderService = ReturnType<typeof createPortalOrderService>;
