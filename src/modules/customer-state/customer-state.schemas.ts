import { Type, type Static } from "@sinclair/typebox";
import { DateTime, MetadataOutput, Nullable, RecurringInterval, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { BenefitGrantProperties } from "../benefits/benefit-grants.schemas.ts";
import { BenefitType } from "../benefits/benefits.schemas.ts";
import { customerFields } from "../customers/customers.schemas.ts";

const CustomFieldData = Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Boolean(), DateTime(), Type.Null()]), {
  description: "Key-value object storing custom field values.",
});

const timestamps = {
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
};

export const CustomerStateSubscriptionMeter = Type.Object(
  {
    ...timestamps,
    id: Uuid4({ description: "The ID of the object." }),
    consumed_units: Type.Number({ description: "The number of consumed units so far in this billing period." }),
    credited_units: Type.Integer({ description: "The number of credited units so far in this billing period." }),
    amount: Type.Integer({ description: "The amount due in cents so far in this billing period." }),
    meter_id: Uuid4({ description: "The ID of the meter." }),
  },
  { title: "CustomerStateSubscriptionMeter" },
);
export type CustomerStateSubscriptionMeter = Static<typeof CustomerStateSubscriptionMeter>;

export const CustomerStateSubscription = Type.Object(
  {
    id: Uuid4({ description: "The ID of the subscription." }),
    ...timestamps,
    custom_field_data: Type.Optional(CustomFieldData),
    metadata: MetadataOutput(),
    status: StringEnum(["active", "trialing"]),
    amount: Type.Integer({ description: "The amount of the subscription." }),
    currency: Type.String({ description: "The currency of the subscription." }),
    recurring_interval: RecurringInterval({ description: "The interval at which the subscription recurs." }),
    current_period_start: DateTime({ description: "The start timestamp of the current billing period." }),
    current_period_end: DateTime({ description: "The end timestamp of the current billing period." }),
    trial_start: Nullable(DateTime(), { description: "The start timestamp of the trial period, if any." }),
    trial_end: Nullable(DateTime(), { description: "The end timestamp of the trial period, if any." }),
    cancel_at_period_end: Type.Boolean({ description: "Whether the subscription will be canceled at the end of the current period." }),
    canceled_at: Nullable(DateTime(), { description: "The timestamp when the subscription was canceled." }),
    started_at: Nullable(DateTime(), { description: "The timestamp when the subscription started." }),
    ends_at: Nullable(DateTime(), { description: "The timestamp when the subscription will end." }),
    product_id: Uuid4({ description: "The ID of the subscribed product." }),
    discount_id: Nullable(Uuid4(), { description: "The ID of the applied discount, if any." }),
    meters: Type.Array(CustomerStateSubscriptionMeter, { description: "List of meters associated with the subscription." }),
  },
  { title: "CustomerStateSubscription", description: "An active customer subscription." },
);
export type CustomerStateSubscription = Static<typeof CustomerStateSubscription>;

export const CustomerStateBenefitGrant = Type.Object(
  {
    id: Uuid4({ description: "The ID of the grant." }),
    ...timestamps,
    granted_at: DateTime({ description: "The timestamp when the benefit was granted." }),
    benefit_id: Uuid4({ description: "The ID of the benefit concerned by this grant." }),
    benefit_type: BenefitType,
    benefit_metadata: MetadataOutput({ description: "The metadata of the benefit concerned by this grant." }),
    properties: BenefitGrantProperties,
  },
  { title: "CustomerStateBenefitGrant", description: "An active benefit grant for a customer." },
);
export type CustomerStateBenefitGrant = Static<typeof CustomerStateBenefitGrant>;

export const CustomerStateMeter = Type.Object(
  {
    id: Uuid4({ description: "The ID of the object." }),
    ...timestamps,
    meter_id: Uuid4({ description: "The ID of the meter." }),
    consumed_units: Type.Number({ description: "The number of consumed units." }),
    credited_units: Type.Integer({ description: "The number of credited units." }),
    balance: Type.Number({ description: "The balance of the meter, i.e. the difference between credited and consumed units." }),
  },
  { title: "CustomerStateMeter", description: "An active meter for a customer, with latest consumed and credited units." },
);
export type CustomerStateMeter = Static<typeof CustomerStateMeter>;

const stateFields = {
  active_subscriptions: Type.Array(CustomerStateSubscription, { description: "The customer's active subscriptions." }),
  granted_benefits: Type.Array(CustomerStateBenefitGrant, { description: "The customer's active benefit grants." }),
  // Meters arrive with usage billing (a later issue); until then no customer has one.
  active_meters: Type.Array(CustomerStateMeter, { description: "The customer's active meters." }),
};

export const CustomerStateIndividual = Type.Object(
  { ...customerFields(Type.String({ description: "Email address of the customer." })), type: Type.Literal("individual"), ...stateFields },
  { title: "CustomerStateIndividual", description: "An individual customer with its active subscriptions, granted benefits and meters." },
);
export const CustomerStateTeam = Type.Object(
  {
    ...customerFields(Type.Optional(Nullable(Type.String(), { description: "Email address of the customer." }))),
    type: Type.Literal("team"),
    ...stateFields,
  },
  { title: "CustomerStateTeam", description: "A team customer with its active subscriptions, granted benefits and meters." },
);

/** What an integrator reads to decide what a customer may use, discriminated by `type`. */
export const CustomerState = Type.Union([CustomerStateIndividual, CustomerStateTeam], { title: "CustomerState" });
export type CustomerState = Static<typeof CustomerState>;
