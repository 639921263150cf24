import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery } from "../../kit/pagination.ts";
import { Nullable, Uuid4 } from "../../kit/schema.ts";
import { CustomerOrderSubscription, OrderUpdate, orderFields, ProductBillingType } from "../orders/orders.schemas.ts";
import { CheckoutProduct } from "../products/products.schemas.ts";
import { CustomerOrganization } from "../organizations/organization-views.schemas.ts";

/** The product of a portal order: the checkout's product view (public benefits) and its seller. */
export const CustomerOrderProduct = Type.Object(
  { ...CheckoutProduct.properties, organization: CustomerOrganization },
  { title: "CustomerOrderProduct" },
);
export type CustomerOrderProduct = Static<typeof CustomerOrderProduct>;

/** The organization's `Order` without what the customer must not see (customer, discount, metadata, fees). */
export const CustomerOrder = Type.Object(
  {
    ...orderFields,
    product: Nullable(CustomerOrderProduct),
    subscription: Nullable(CustomerOrderSubscription),
  },
  { title: "CustomerOrder" },
);
export type CustomerOrder = Static<typeof CustomerOrder>;

export const ListResourceCustomerOrder = ListResource(CustomerOrder, { title: "ListResource[CustomerOrder]" });
export type ListResourceCustomerOrder = Static<typeof ListResourceCustomerOrder>;

export const CustomerOrderUpdate = Type.Object(OrderUpdate.properties, { title: "CustomerOrderUpdate" });
export type CustomerOrderUpdate = Static<typeof CustomerOrderUpdate>;

export const CustomerOrderSortKeys = ["created_at", "amount", "net_amount", "product", "subscription"] as const;

export const CustomerOrderListQuery = Type.Object({
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  product_billing_type: OneOrMany(
    ProductBillingType,
    "Filter by product billing type. `recurring` matches subscription orders (creations and renewals), `one_time` one-time purchases.",
  ),
  subscription_id: OneOrMany(Uuid4(), "Filter by subscription ID."),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Search by product or organization name." })),
  ...PaginationQuery,
  sorting: SortingQuery(CustomerOrderSortKeys, ["-created_at"], { title: "CustomerOrderSortProperty", maxItems: 20 }),
});
export type CustomerOrderListQuery = Static<typeof CustomerOrderListQuery>;
