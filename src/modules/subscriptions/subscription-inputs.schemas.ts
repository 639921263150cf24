import { Type, type Static } from "@sinclair/typebox";
import { OneOrMany } from "../../schema/pagination.ts";
import { DateTime, MetadataInput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { CustomerCancellationReason, SubscriptionStatus } from "../orders/orders.schemas.ts";

export const SubscriptionProrationBehavior = StringEnum(["invoice", "prorate", "next_period", "reset"] as const, {
  title: "SubscriptionProrationBehavior",
});
export type SubscriptionProrationBehavior = Static<typeof SubscriptionProrationBehavior>;

const strict = { additionalProperties: false } as const;
const ProrationBehavior = Type.Optional(
  Nullable(SubscriptionProrationBehavior, { description: "How the change is billed; the organization's default when omitted." }),
);
const CancellationReason = Type.Optional(Nullable(CustomerCancellationReason));
const CancellationComment = Type.Optional(Nullable(Type.String({ maxLength: 1000 })));

// The update body is the reference's undiscriminated union: each member forbids the others' keys,
// so a body mixing two kinds of change matches none and is refused with every member's errors.
export const SubscriptionUpdateBase = Type.Object(
  {
    metadata: Type.Optional(MetadataInput()),
    product_id: Type.Optional(Nullable(Uuid4({ description: "Update subscription to another product." }))),
    proration_behavior: ProrationBehavior,
    discount_id: Type.Optional(Nullable(Uuid4({ description: "Update the subscription to apply a new discount. Null removes it." }))),
    trial_end: Type.Optional(
      Nullable(Type.Union([DateTime(), Type.Literal("now")]), { description: "A new trial end, or `now` to end the trial at once." }),
    ),
  },
  { ...strict, title: "SubscriptionUpdateBase" },
);
export const SubscriptionUpdateSeats = Type.Object(
  {
    seats: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: "The new number of seats." }),
    proration_behavior: ProrationBehavior,
  },
  { ...strict, title: "SubscriptionUpdateSeats" },
);
export const SubscriptionUpdateBillingPeriod = Type.Object(
  { current_billing_period_end: DateTime({ description: "A new end of the current period." }) },
  { ...strict, title: "SubscriptionUpdateBillingPeriod" },
);
export const SubscriptionCancel = Type.Object(
  {
    customer_cancellation_reason: CancellationReason,
    customer_cancellation_comment: CancellationComment,
    cancel_at_period_end: Type.Boolean({ description: "Cancel at the end of the period (true) or undo a scheduled cancellation (false)." }),
  },
  { ...strict, title: "SubscriptionCancel" },
);
export const SubscriptionRevoke = Type.Object(
  {
    customer_cancellation_reason: CancellationReason,
    customer_cancellation_comment: CancellationComment,
    revoke: Type.Literal(true, { description: "Cancel and end the subscription now." }),
  },
  { ...strict, title: "SubscriptionRevoke" },
);
export const SubscriptionPause = Type.Object(
  { pause_at_period_end: Type.Boolean(), resumes_at: Type.Optional(Nullable(DateTime())) },
  { ...strict, title: "SubscriptionPause" },
);
export const SubscriptionResume = Type.Object({ resume: Type.Literal(true) }, { ...strict, title: "SubscriptionResume" });
export const SubscriptionUpdateClear = Type.Object({ pending_update: Type.Null() }, { ...strict, title: "SubscriptionUpdateClear" });

export const SubscriptionUpdate = Type.Union(
  [
    SubscriptionUpdateBase,
    SubscriptionUpdateSeats,
    SubscriptionUpdateBillingPeriod,
    SubscriptionCancel,
    SubscriptionRevoke,
    SubscriptionPause,
    SubscriptionResume,
    SubscriptionUpdateClear,
  ],
  { title: "SubscriptionUpdate" },
);
export type SubscriptionUpdate = Static<typeof SubscriptionUpdate>;

export const SubscriptionCreate = Type.Union(
  [
    Type.Object(
      { metadata: Type.Optional(MetadataInput()), product_id: Uuid4(), customer_id: Uuid4() },
      { ...strict, title: "SubscriptionCreateCustomer" },
    ),
    Type.Object(
      {
        metadata: Type.Optional(MetadataInput()),
        product_id: Uuid4(),
        external_customer_id: Type.String({ minLength: 1, maxLength: 256 }),
      },
      { ...strict, title: "SubscriptionCreateExternalCustomer" },
    ),
  ],
  { title: "Subscription Create" },
);
export type SubscriptionCreate = Static<typeof SubscriptionCreate>;

export const SubscriptionExportColumnValues = [
  "email",
  "started_at",
  "product",
  "amount",
  "currency",
  "status",
  "recurring_interval",
  "customer_name",
  "billing_name",
  "billing_country",
  "net_amount",
  "discount",
  "seats",
  "current_period_start",
  "current_period_end",
  "cancel_at_period_end",
  "canceled_at",
  "ends_at",
  "ended_at",
  "cancellation_reason",
  "trial_start",
  "trial_end",
] as const;
export type SubscriptionExportColumn = (typeof SubscriptionExportColumnValues)[number];
export const SubscriptionExportColumn = StringEnum(SubscriptionExportColumnValues, { title: "SubscriptionExportColumn" });

export const SubscriptionExportQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  status: OneOrMany(SubscriptionStatus, "Filter by subscription status."),
  cancel_at_period_end: Type.Optional(Type.Boolean()),
  started_after: Type.Optional(DateTime()),
  started_before: Type.Optional(DateTime()),
  timezone: Type.Optional(Type.String({ maxLength: 64, default: "UTC", description: "IANA time zone the dates are written in." })),
  columns: OneOrMany(
    SubscriptionExportColumn,
    "Columns of the CSV, in order; email, started_at, product, amount, currency, status and recurring_interval by default.",
  ),
});
export type SubscriptionExportQuery = Static<typeof SubscriptionExportQuery>;
