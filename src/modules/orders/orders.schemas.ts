import { Type, type Static } from "@sinclair/typebox";
import { Address, AddressInput } from "../../schema/address.ts";
import { ListResource, MetadataQuery, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, MetadataInput, MetadataOutput, Nullable, RecurringInterval, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { CustomerType, CustomerTeam } from "../customers/customers.schemas.ts";
import { DiscountProduct, OrderDiscount } from "../discounts/discounts.schemas.ts";

export const OrderStatusValues = ["draft", "pending", "paid", "refunded", "partially_refunded", "void"] as const;
export const OrderStatus = StringEnum(OrderStatusValues, { title: "OrderStatus" });
export type OrderStatus = Static<typeof OrderStatus>;

export const OrderBillingReasonValues = [
  "purchase",
  "subscription_create",
  "subscription_cycle",
  "subscription_update",
  "subscription_meter_cycle",
] as const;
export const OrderBillingReason = StringEnum(OrderBillingReasonValues, { title: "OrderBillingReason" });

export const ProductBillingType = StringEnum(["one_time", "recurring"] as const, { title: "ProductBillingType" });
export type ProductBillingType = Static<typeof ProductBillingType>;

export const SubscriptionStatus = StringEnum(
  ["incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid", "paused"] as const,
  {
    title: "SubscriptionStatus",
  },
);
export const CustomerCancellationReason = StringEnum(
  ["customer_service", "low_quality", "missing_features", "switched_service", "too_complex", "too_expensive", "unused", "other"] as const,
  { title: "CustomerCancellationReason" },
);

export const OrderItem = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    label: Type.String({ description: "Description of the line item charge." }),
    amount: Type.Integer({ description: "Amount in cents, before discounts and taxes." }),
    tax_amount: Type.Integer({ description: "Sales tax amount in cents." }),
    proration: Type.Boolean({ description: "Whether this charge is due to a proration." }),
    product_price_id: Nullable(Uuid4(), { description: "Associated price ID, if any." }),
  },
  { title: "OrderItemSchema", description: "An order line item." },
);
export type OrderItem = Static<typeof OrderItem>;

/** The customer embedded in an order: every customer field, `type` not narrowed to one branch. */
export const OrderCustomer = Type.Object({ ...CustomerTeam.properties, type: CustomerType }, { title: "OrderCustomer" });

/** The product summary embedded in an order: the discount view's product (base fields and metadata). */
export const OrderProduct = Type.Object({ ...DiscountProduct.properties }, { title: "OrderProduct" });

/** A subscription's own scalar fields: the order's summary of it, and the base of the full `Subscription`. */
export const subscriptionFields = {
  created_at: DateTime(),
  modified_at: Nullable(DateTime()),
  id: Uuid4(),
  amount: Type.Integer(),
  currency: Type.String(),
  recurring_interval: RecurringInterval(),
  recurring_interval_count: Type.Integer(),
  status: SubscriptionStatus,
  current_period_start: DateTime(),
  current_period_end: DateTime(),
  current_meter_period_start: Nullable(DateTime()),
  current_meter_period_end: Nullable(DateTime()),
  trial_start: Nullable(DateTime()),
  trial_end: Nullable(DateTime()),
  cancel_at_period_end: Type.Boolean(),
  canceled_at: Nullable(DateTime()),
  started_at: Nullable(DateTime()),
  ends_at: Nullable(DateTime()),
  ended_at: Nullable(DateTime()),
  past_due_at: Type.Optional(Nullable(DateTime())),
  pause_at_period_end: Type.Boolean(),
  paused_at: Nullable(DateTime()),
  resumes_at: Nullable(DateTime()),
  customer_id: Uuid4(),
  product_id: Uuid4(),
  discount_id: Nullable(Uuid4()),
  checkout_id: Nullable(Uuid4()),
  seats: Type.Optional(Nullable(Type.Integer())),
  customer_cancellation_reason: Nullable(CustomerCancellationReason),
  customer_cancellation_comment: Nullable(Type.String()),
};
export const OrderSubscription = Type.Object({ metadata: MetadataOutput(), ...subscriptionFields }, { title: "OrderSubscription" });
export const CustomerOrderSubscription = Type.Object(subscriptionFields, { title: "CustomerOrderSubscription" });

const CustomFieldData = Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Boolean(), DateTime(), Type.Null()]), {
  description: "Key-value object storing custom field values.",
});

/** The fields an order has in both the organization's and the customer's view. */
export const orderFields = {
  id: Uuid4({ description: "The ID of the object." }),
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  status: OrderStatus,
  paid: Type.Boolean({ description: "Whether the order has been paid for." }),
  subtotal_amount: Type.Integer({ description: "Amount in cents, before discounts and taxes." }),
  discount_amount: Type.Integer({ description: "Discount amount in cents." }),
  net_amount: Type.Integer({ description: "Amount in cents, after discounts but before taxes." }),
  tax_amount: Type.Integer({ description: "Sales tax amount in cents." }),
  total_amount: Type.Integer({ description: "Amount in cents, after discounts and taxes." }),
  applied_balance_amount: Type.Integer({ description: "Customer's balance amount applied to this invoice." }),
  due_amount: Type.Integer({ description: "Amount in cents that is due for this order." }),
  refunded_amount: Type.Integer({ description: "Amount refunded in cents." }),
  refunded_tax_amount: Type.Integer({ description: "Sales tax refunded in cents." }),
  currency: Type.String(),
  billing_reason: OrderBillingReason,
  billing_name: Nullable(Type.String(), { description: "The name of the customer that should appear on the invoice." }),
  billing_address: Nullable(Address),
  invoice_number: Nullable(Type.String(), { description: "The invoice number associated with this order." }),
  is_invoice_generated: Type.Boolean({ description: "Whether an invoice has been generated for this order." }),
  receipt_number: Nullable(Type.String(), { description: "The receipt number associated with this order, once paid." }),
  seats: Type.Optional(Nullable(Type.Integer({ description: "Number of seats purchased (for seat-based one-time orders)." }))),
  customer_id: Uuid4(),
  product_id: Nullable(Uuid4()),
  discount_id: Nullable(Uuid4()),
  subscription_id: Nullable(Uuid4()),
  checkout_id: Nullable(Uuid4()),
  next_payment_attempt_at: Type.Optional(Nullable(DateTime(), { description: "When the next payment retry is scheduled." })),
  items: Type.Array(OrderItem, { description: "Line items composing the order." }),
  description: Type.String({ description: "A summary description of the order." }),
  refundable_amount: Type.Integer({ description: "Amount in cents that can still be refunded (net, before taxes)." }),
  refundable_tax_amount: Type.Integer({ description: "Sales tax in cents that can still be refunded." }),
};

export const Order = Type.Object(
  {
    ...orderFields,
    metadata: MetadataOutput(),
    custom_field_data: Type.Optional(CustomFieldData),
    platform_fee_amount: Type.Integer({ description: "Platform fee amount in cents." }),
    platform_fee_currency: Nullable(Type.String(), { description: "Currency of the platform fee." }),
    customer: OrderCustomer,
    product: Nullable(OrderProduct),
    discount: Nullable(OrderDiscount),
    subscription: Nullable(OrderSubscription),
  },
  { title: "Order" },
);
export type Order = Static<typeof Order>;

/** A draft order for a one-time product, charged off-session when finalized. */
export const OrderCreate = Type.Object(
  {
    customer_id: Uuid4({ description: "The ID of the customer the order is for. Must belong to the order's organization." }),
    product_id: Uuid4({ description: "The ID of the one-time product to charge for. Only fixed-price and free products are supported." }),
    currency: Type.Optional(
      Nullable(Type.String({ maxLength: 3 }), {
        description: "The currency to charge in (ISO 4217, lowercase). Defaults to the organization's default currency.",
      }),
    ),
    amount: Type.Optional(
      Nullable(Type.Integer({ minimum: 0 }), {
        description: "A custom amount to charge, in the smallest currency unit. Overrides the product's price.",
      }),
    ),
    description: Type.Optional(
      Nullable(Type.String({ maxLength: 500 }), {
        description: "A custom description for the order's line item. Defaults to the product name.",
      }),
    ),
    metadata: Type.Optional(MetadataInput()),
    custom_field_data: Type.Optional(CustomFieldData),
    organization_id: Type.Optional(
      Nullable(Uuid4(), { description: "The ID of the organization the order belongs to. Required unless you use an organization token." }),
    ),
  },
  { title: "OrderCreate" },
);
export type OrderCreate = Static<typeof OrderCreate>;

export const OrderFinalize = Type.Object(
  {
    payment_method_id: Type.Optional(
      Nullable(Uuid4(), {
        description: "ID of the payment method to charge. Falls back to the customer's default payment method when unset.",
      }),
    ),
  },
  { title: "OrderFinalize" },
);
export type OrderFinalize = Static<typeof OrderFinalize>;

/** Unknown fields are ignored, as the hosted service and this project's other update bodies do (docs/decisions.md, "Order routes"). */
export const OrderUpdate = Type.Object(
  {
    billing_name: Type.Optional(
      Nullable(Type.String({ maxLength: 256 }), { description: "The name of the customer that should appear on the invoice." }),
    ),
    billing_address: Type.Optional(
      Nullable(AddressInput, {
        description: "The address of the customer that should appear on the invoice. Country and state fields cannot be updated.",
      }),
    ),
  },
  { title: "OrderUpdate" },
);
export type OrderUpdate = Static<typeof OrderUpdate>;

/** A presigned download of the invoice or the receipt PDF. */
export const OrderInvoice = Type.Object({ url: Type.String({ description: "The URL to the invoice." }) }, { title: "OrderInvoice" });
export const OrderReceipt = Type.Object({ url: Type.String({ description: "The URL to the receipt PDF." }) }, { title: "OrderReceipt" });

export const OrderSortKeys = [
  "created_at",
  "status",
  "invoice_number",
  "amount",
  "net_amount",
  "customer",
  "product",
  "discount",
  "subscription",
] as const;
export type OrderSortKey = (typeof OrderSortKeys)[number];

export const OrderListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  product_billing_type: OneOrMany(
    ProductBillingType,
    "Filter by product billing type. `recurring` matches subscription orders (creations and renewals), `one_time` one-time purchases.",
  ),
  discount_id: OneOrMany(Uuid4(), "Filter by discount ID."),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID."),
  external_customer_id: OneOrMany(Type.String({ maxLength: 256 }), "Filter by customer external ID."),
  checkout_id: OneOrMany(Uuid4(), "Filter by checkout ID."),
  subscription_id: OneOrMany(Uuid4(), "Filter by subscription ID."),
  status: OneOrMany(OrderStatus, "Filter by order status."),
  created_after: Type.Optional(DateTime({ description: "Only include orders created after this date." })),
  created_before: Type.Optional(DateTime({ description: "Only include orders created before this date." })),
  metadata: MetadataQuery(),
  ...PaginationQuery,
  sorting: SortingQuery(OrderSortKeys, ["-created_at"], { title: "OrderSortProperty", maxItems: 20 }),
});
export type OrderListQuery = Static<typeof OrderListQuery>;

export const OrderExportColumnValues = [
  "email",
  "created_at",
  "product",
  "net_amount",
  "currency",
  "status",
  "invoice_number",
  "customer_name",
  "billing_name",
  "billing_country",
  "subtotal_amount",
  "discount_amount",
  "tax_amount",
  "total_amount",
  "refunded_amount",
  "billing_reason",
] as const;
export type OrderExportColumn = (typeof OrderExportColumnValues)[number];
export const OrderExportColumn = StringEnum(OrderExportColumnValues, { title: "OrderExportColumn" });

export const OrderExportQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  status: OneOrMany(OrderStatus, "Filter by order status."),
  created_after: Type.Optional(DateTime({ description: "Only include orders created after this date. Must include a UTC offset." })),
  created_before: Type.Optional(DateTime({ description: "Only include orders created before this date. Must include a UTC offset." })),
  timezone: Type.Optional(Type.String({ maxLength: 64, default: "UTC", description: "Time zone used to render dates in the CSV." })),
  columns: OneOrMany(
    OrderExportColumn,
    "Columns to include in the CSV, in order. Defaults to email, created_at, product, net_amount, currency, status and invoice_number.",
  ),
});
export type OrderExportQuery = Static<typeof OrderExportQuery>;

export const ListResourceOrder = ListResource(Order, { title: "ListResource[Order]" });
export type ListResourceOrder = Static<typeof ListResourceOrder>;
