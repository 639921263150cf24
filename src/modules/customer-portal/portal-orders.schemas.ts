import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { Nullable, Uuid4 } from "../../schema/primitives.ts";
import { CustomerOrderSubscription, OrderUpdate, orderFields, ProductBillingType } from "../orders/orders.schemas.ts";
import { CheckoutProduct } from "../products/products.schemas.ts";
import { CustomerOrganization } from "../organizations/organization-views.schemas.ts";
import { PaymentProcessor } from "../payments/payment-methods.schemas.ts";

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

export const CustomerOrderPaymentStatus = Type.Object(
  {
    status: Type.String({ description: "Current payment status." }),
    error: Type.Optional(Nullable(Type.String(), { description: "Error message if payment failed." })),
  },
  { title: "CustomerOrderPaymentStatus", description: "Payment status for an order." },
);
export type CustomerOrderPaymentStatus = Static<typeof CustomerOrderPaymentStatus>;

export const CustomerOrderConfirmPayment = Type.Object(
  {
    confirmation_token_id: Type.Optional(
      Nullable(Type.String({ maxLength: 256 }), { description: "ID of the Stripe confirmation token for new payment methods." }),
    ),
    payment_method_id: Type.Optional(Nullable(Uuid4(), { description: "ID of an existing saved payment method." })),
    payment_processor: Type.Optional(PaymentProcessor),
  },
  {
    title: "CustomerOrderConfirmPayment",
    description: "Schema to confirm a retry payment using either a saved payment method or a new confirmation token.",
  },
);
export type CustomerOrderConfirmPayment = Static<typeof CustomerOrderConfirmPayment>;

export const CustomerOrderPaymentConfirmation = Type.Object(
  {
    status: Type.String({ description: "Payment status after confirmation." }),
    client_secret: Type.Optional(Nullable(Type.String(), { description: "Client secret for handling additional actions." })),
    error: Type.Optional(Nullable(Type.String(), { description: "Error message if confirmation failed." })),
  },
  { title: "CustomerOrderPaymentConfirmation", description: "Response after confirming a retry payment." },
);
export type CustomerOrderPaymentConfirmation = Static<typeof CustomerOrderPaymentConfirmation>;
