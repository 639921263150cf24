import { Type, type Static } from "@sinclair/typebox";
import { ListResource, MetadataQuery, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, MetadataOutput, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { OrderDiscount } from "../discounts/discounts.schemas.ts";
import { CustomerCancellationReason, OrderCustomer, SubscriptionStatus, subscriptionFields } from "../orders/orders.schemas.ts";
import { Meter } from "../meters/meters.schemas.ts";
import { Product, ProductPrice } from "../products/products.schemas.ts";

const CustomFieldData = Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Boolean(), DateTime(), Type.Null()]), {
  description: "Key-value object storing custom field values.",
});

/** A change scheduled for the end of the period (`proration_behavior: next_period`). */
export const PendingSubscriptionUpdate = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    applies_at: DateTime({ description: "When the update will be applied." }),
    product_id: Nullable(Uuid4(), { description: "The product the subscription will switch to, if any." }),
    seats: Nullable(Type.Integer(), { description: "The number of seats the subscription will switch to, if any." }),
  },
  { title: "PendingSubscriptionUpdate" },
);

/** A metered price's meter on a subscription: the current period's usage so far, computed when read. */
export const SubscriptionMeter = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    consumed_units: Type.Number({ description: "The number of consumed units so far in this billing period." }),
    credited_units: Type.Integer({ description: "The number of credited units so far in this billing period." }),
    amount: Type.Integer({ description: "The amount due in cents so far in this billing period." }),
    meter_id: Uuid4({ description: "The ID of the meter." }),
    meter: Meter,
  },
  { title: "SubscriptionMeter", description: "Current consumption and spending for a subscription meter." },
);
export type SubscriptionMeter = Static<typeof SubscriptionMeter>;

export const Subscription = Type.Object(
  {
    ...subscriptionFields,
    metadata: MetadataOutput(),
    custom_field_data: Type.Optional(CustomFieldData),
    customer: OrderCustomer,
    product: Product,
    discount: Nullable(OrderDiscount),
    prices: Type.Array(ProductPrice, { description: "List of enabled prices for the subscription." }),
    meters: Type.Array(SubscriptionMeter, { description: "List of meters associated with the subscription." }),
    pending_update: Nullable(PendingSubscriptionUpdate, { description: "Pending subscription update that will be applied at period end." }),
  },
  { title: "Subscription" },
);
export type Subscription = Static<typeof Subscription>;

export const SubscriptionSortKeys = [
  "customer",
  "status",
  "started_at",
  "current_period_end",
  "ended_at",
  "ends_at",
  "amount",
  "product",
  "discount",
] as const;
export type SubscriptionSortKey = (typeof SubscriptionSortKeys)[number];

export const SubscriptionListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID."),
  external_customer_id: OneOrMany(Type.String({ maxLength: 256 }), "Filter by customer external ID."),
  discount_id: OneOrMany(Uuid4(), "Filter by discount ID."),
  active: Type.Optional(
    Type.Boolean({
      deprecated: true,
      description: "Filter by active or inactive subscription: `true` trialing or active, `false` canceled or unpaid.",
    }),
  ),
  status: OneOrMany(SubscriptionStatus, "Filter by subscription status."),
  cancel_at_period_end: Type.Optional(Type.Boolean({ description: "Filter by subscriptions that are set to cancel at period end." })),
  customer_cancellation_reason: OneOrMany(CustomerCancellationReason, "Filter by customer cancellation reason."),
  canceled_at_after: Type.Optional(DateTime({ description: "Filter by cancellation date (after or equal to)." })),
  canceled_at_before: Type.Optional(DateTime({ description: "Filter by cancellation date (before or equal to)." })),
  started_after: Type.Optional(DateTime({ description: "Only include subscriptions started after this date." })),
  started_before: Type.Optional(DateTime({ description: "Only include subscriptions started before this date." })),
  metadata: MetadataQuery(),
  ...PaginationQuery,
  sorting: SortingQuery(SubscriptionSortKeys, ["-started_at"], { maxItems: 20 }, { title: "SubscriptionSortProperty" }),
});
export type SubscriptionListQuery = Static<typeof SubscriptionListQuery>;

export const ListResourceSubscription = ListResource(Subscription, { title: "ListResource[Subscription]" });
export type ListResourceSubscription = Static<typeof ListResourceSubscription>;
