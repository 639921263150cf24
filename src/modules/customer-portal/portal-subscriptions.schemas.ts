import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { CustomerCancellationReason, subscriptionFields } from "../orders/orders.schemas.ts";
import { ProductPrice } from "../products/products.schemas.ts";
import { PendingSubscriptionUpdate, SubscriptionMeter } from "../subscriptions/subscriptions.schemas.ts";
import { CustomerOrderProduct } from "./portal-orders.schemas.ts";

/** The product of a portal subscription: the same view as a portal order's product. */
export const CustomerSubscriptionProduct = Type.Object(CustomerOrderProduct.properties, { title: "CustomerSubscriptionProduct" });

/** A subscription's meter as its customer sees it: the consumption and amount, the meter by name only. */
export const CustomerSubscriptionMeter = Type.Object(
  {
    ...Type.Omit(SubscriptionMeter, ["meter"]).properties,
    meter: Type.Object(
      {
        created_at: DateTime({ description: "Creation timestamp of the object." }),
        modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
        id: Uuid4({ description: "The ID of the object." }),
        name: Type.String({ description: "The name of the meter. Will be shown on customer's invoices and usage." }),
      },
      { title: "CustomerSubscriptionMeterMeter" },
    ),
  },
  { title: "CustomerSubscriptionMeter" },
);

/** The organization's `Subscription` without what the customer must not see (customer, discount, metadata). */
export const CustomerSubscription = Type.Object(
  {
    ...subscriptionFields,
    product: CustomerSubscriptionProduct,
    prices: Type.Array(ProductPrice, { description: "List of enabled prices for the subscription." }),
    meters: Type.Array(CustomerSubscriptionMeter, { description: "List of meters associated with the subscription." }),
    pending_update: Nullable(PendingSubscriptionUpdate),
  },
  { title: "CustomerSubscription" },
);
export type CustomerSubscription = Static<typeof CustomerSubscription>;

export const ListResourceCustomerSubscription = ListResource(CustomerSubscription, { title: "ListResource[CustomerSubscription]" });

export const CustomerSubscriptionSortKeys = ["started_at", "amount", "status", "organization", "product"] as const;

export const CustomerSubscriptionListQuery = Type.Object({
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  active: Type.Optional(
    Type.Boolean({ description: "Filter by active (trialing or active) or inactive (canceled or unpaid) subscription." }),
  ),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Search by product or organization name." })),
  ...PaginationQuery,
  sorting: SortingQuery(CustomerSubscriptionSortKeys, ["-started_at"], { maxItems: 20 }, { title: "CustomerSubscriptionSortProperty" }),
});
export type CustomerSubscriptionListQuery = Static<typeof CustomerSubscriptionListQuery>;

const strict = { additionalProperties: false } as const;
/** The changes a customer may make; note the `cancellation_*` names, unlike the merchant's. */
export const CustomerSubscriptionUpdate = Type.Union(
  [
    Type.Object({ product_id: Uuid4() }, { ...strict, title: "CustomerSubscriptionUpdateProduct" }),
    Type.Object({ seats: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }, { ...strict, title: "CustomerSubscriptionUpdateSeats" }),
    Type.Object(
      {
        cancel_at_period_end: Type.Optional(Nullable(Type.Boolean())),
        cancellation_reason: Type.Optional(Nullable(CustomerCancellationReason)),
        cancellation_comment: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
      },
      { ...strict, title: "CustomerSubscriptionCancel" },
    ),
    Type.Object(
      { pause_at_period_end: Type.Boolean(), resumes_at: Type.Optional(Nullable(DateTime())) },
      { ...strict, title: "CustomerSubscriptionPause" },
    ),
    Type.Object({ resume: Type.Literal(true) }, { ...strict, title: "CustomerSubscriptionResume" }),
    Type.Object({ pending_update: Type.Null() }, { ...strict, title: "CustomerSubscriptionUpdateClear" }),
  ],
  { title: "CustomerSubscriptionUpdate" },
);
export type CustomerSubscriptionUpdate = Static<typeof CustomerSubscriptionUpdate>;
