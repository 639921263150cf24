import { Type, type Static } from "@sinclair/typebox";
import { AddressInput } from "../../schema/address.ts";
import { OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, MetadataInput, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { TrialInterval } from "../../schema/extra-primitives.ts";
import { PresentmentCurrency } from "../organizations/organizations.schemas.ts";
import { CheckoutStatus } from "./checkouts.schemas.ts";

// Strings the reference leaves unbounded get a cap here, so no caller can store unbounded text
// (docs/decisions.md, "Input caps").
const text = (maxLength: number, description?: string) => Nullable(Type.String({ maxLength }), description ? { description } : {});
// A pattern rather than `format: uri`: `{CHECKOUT_ID}` placeholders are not valid URI characters.
export const HttpUrl = (description: string) =>
  Nullable(Type.String({ pattern: "^https?://\\S+$", minLength: 1, maxLength: 2083 }), { description });
const Metadata = () => MetadataInput({ propertyNames: { minLength: 1, maxLength: 40 } });
const SeatCount = (description: string) => Nullable(Type.Integer({ minimum: 1, maximum: 10_000 }), { description });

// Numbers are taken whole or not: a fraction for a number field is refused at its slug
// (`int_from_float`) by the field's own check, not by the body's schema.
const CustomFieldData = Type.Record(
  Type.String({ maxLength: 100 }),
  Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean(), DateTime(), Type.Null()]),
  {
    maxProperties: 50,
    description: "Values of the custom fields, keyed by field slug; checked against the fields attached to the selected product.",
  },
);

/** Fields every way of editing a session shares: the buyer's own inputs. */
const buyerFields = {
  custom_field_data: Type.Optional(CustomFieldData),
  product_id: Type.Optional(Nullable(Uuid4(), { description: "Product to select; must be one of the session's products." })),
  product_price_id: Type.Optional(Nullable(Uuid4(), { description: "Price to select; selects its product.", deprecated: true })),
  amount: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 99_999_999 }), { description: "Amount in cents for custom prices." })),
  seats: Type.Optional(SeatCount("Number of seats for seat-based prices.")),
  is_business_customer: Type.Optional(Nullable(Type.Boolean())),
  customer_name: Type.Optional(text(256, "Name of the customer.")),
  customer_email: Type.Optional(
    Nullable(Type.String({ format: "email", maxLength: 320 }), { description: "Email address of the customer." }),
  ),
  customer_billing_name: Type.Optional(text(256)),
  customer_billing_address: Type.Optional(Nullable(AddressInput, { description: "Billing address of the customer." })),
  customer_tax_id: Type.Optional(text(64)),
  locale: Type.Optional(text(35, "IETF BCP 47 language tag of the customer.")),
};

const merchantFields = {
  metadata: Type.Optional(Metadata()),
  customer_metadata: Type.Optional(Metadata()),
  trial_interval: Type.Optional(Nullable(TrialInterval(), { description: "Unit of the trial period." })),
  trial_interval_count: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }), { description: "Number of trial units." })),
  discount_id: Type.Optional(Nullable(Uuid4(), { description: "Discount to apply." })),
  customer_ip_address: Type.Optional(text(45)),
  success_url: Type.Optional(HttpUrl("Where the customer lands after paying; `{CHECKOUT_ID}` is substituted.")),
  return_url: Type.Optional(HttpUrl("When set, the form shows a back link to it.")),
  embed_origin: Type.Optional(text(2083, "Origin of the page embedding the checkout.")),
  currency: Type.Optional(Nullable(PresentmentCurrency)),
};

// A new session selects its first product; picking another is an update.
const { product_id: _productId, product_price_id: _priceId, ...createBuyerFields } = buyerFields;

export const CheckoutCreate = Type.Object(
  {
    ...createBuyerFields,
    ...merchantFields,
    products: Type.Array(Uuid4(), { minItems: 1, maxItems: 100, description: "Products offered; the first is selected." }),
    prices: Type.Optional(
      Nullable(Type.Record(Type.String(), Type.Unknown()), { description: "Ad-hoc prices are not supported; must be null or absent." }),
    ),
    allow_discount_codes: Type.Optional(Type.Boolean({ default: true })),
    require_billing_address: Type.Optional(Type.Boolean({ default: false })),
    allow_trial: Type.Optional(Type.Boolean({ default: true })),
    // No default: an omitted flag lets an existing business customer turn it on.
    is_business_customer: Type.Optional(Type.Boolean()),
    min_seats: Type.Optional(SeatCount("Lowest seat count allowed.")),
    max_seats: Type.Optional(SeatCount("Highest seat count allowed.")),
    customer_id: Type.Optional(Nullable(Uuid4(), { description: "Existing customer to pre-fill and link." })),
    external_customer_id: Type.Optional(text(256, "Customer ID in the caller's system.")),
    subscription_id: Type.Optional(Nullable(Uuid4(), { description: "Subscription to upgrade." })),
  },
  { title: "CheckoutProductsCreate" },
);
export type CheckoutCreate = Static<typeof CheckoutCreate>;

export const CheckoutUpdate = Type.Object(
  {
    ...buyerFields,
    ...merchantFields,
    allow_discount_codes: Type.Optional(Nullable(Type.Boolean())),
    require_billing_address: Type.Optional(Nullable(Type.Boolean())),
    allow_trial: Type.Optional(Nullable(Type.Boolean())),
    customer_metadata: Type.Optional(Nullable(Metadata())),
  },
  { title: "CheckoutUpdate" },
);
export type CheckoutUpdate = Static<typeof CheckoutUpdate>;

const publicFields = {
  ...buyerFields,
  payment_method_type: Type.Optional(text(64, "Payment method chosen in the form, e.g. `card`.")),
  discount_code: Type.Optional(text(256, "Discount code to apply.")),
  allow_trial: Type.Optional(Nullable(Type.Literal(false), { description: "Turns the trial off." })),
};

export const CheckoutUpdatePublic = Type.Object(publicFields, { title: "CheckoutUpdatePublic" });
export type CheckoutUpdatePublic = Static<typeof CheckoutUpdatePublic>;

export const CheckoutConfirm = Type.Object(
  {
    ...publicFields,
    confirmation_token_id: Type.Optional(text(255, "Payment confirmation token; required when a payment form is shown.")),
  },
  { title: "CheckoutConfirmStripe" },
);
export type CheckoutConfirm = Static<typeof CheckoutConfirm>;

/** Every field any edit may carry, as the service consumes them. */
export type CheckoutChanges = Partial<Omit<CheckoutUpdate, "allow_trial"> & Omit<CheckoutUpdatePublic, "allow_trial">> & {
  allow_trial?: boolean | null;
  is_business_customer?: boolean | null;
};

export const CheckoutSortKeys = ["created_at", "expires_at", "status"] as const;

export const CheckoutListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  product_id: OneOrMany(Uuid4(), "Filter by product ID."),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID."),
  external_customer_id: OneOrMany(Type.String({ maxLength: 256 }), "Filter by customer external ID."),
  status: OneOrMany(CheckoutStatus, "Filter by checkout session status."),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by customer email." })),
  ...PaginationQuery,
  sorting: SortingQuery(CheckoutSortKeys, ["-created_at"], { maxItems: 6 }, { title: "CheckoutSortProperty" }),
});
export type CheckoutListQuery = Static<typeof CheckoutListQuery>;
