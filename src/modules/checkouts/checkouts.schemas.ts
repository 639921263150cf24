import { Type, type Static } from "@sinclair/typebox";
import { Address } from "../../schema/address.ts";
import { DateTime, MetadataOutput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { TrialInterval, UuidRecord } from "../../schema/extra-primitives.ts";
import { AnyProductPrice, CheckoutProduct } from "../products/products.schemas.ts";
import { CheckoutDiscount } from "../discounts/discounts.schemas.ts";
import { AttachedCustomField } from "../custom-fields/custom-fields.schemas.ts";
import { CheckoutOrganization } from "../organizations/organization-views.schemas.ts";
import { PaymentProcessor } from "../payments/payment-methods.schemas.ts";

export const CheckoutStatusValues = ["open", "expired", "confirmed", "succeeded", "failed"] as const;
export const CheckoutStatus = StringEnum(CheckoutStatusValues, { title: "CheckoutStatus" });
export type CheckoutStatus = Static<typeof CheckoutStatus>;

export const TaxBehaviorValues = ["inclusive", "exclusive"] as const;
export const TaxBehavior = StringEnum(TaxBehaviorValues, { title: "TaxBehavior" });
export type TaxBehavior = Static<typeof TaxBehavior>;

export const BillingAddressFieldModeValues = ["required", "optional", "disabled"] as const;
export const BillingAddressFieldMode = StringEnum(BillingAddressFieldModeValues, { title: "BillingAddressFieldMode" });
export type BillingAddressFieldMode = Static<typeof BillingAddressFieldMode>;

export const CheckoutBillingAddressFields = Type.Object(
  {
    country: BillingAddressFieldMode,
    state: BillingAddressFieldMode,
    city: BillingAddressFieldMode,
    postal_code: BillingAddressFieldMode,
    line1: BillingAddressFieldMode,
    line2: BillingAddressFieldMode,
  },
  { title: "CheckoutBillingAddressFields" },
);
export type CheckoutBillingAddressFields = Static<typeof CheckoutBillingAddressFields>;

const seatCount = (description: string) => Type.Optional(Nullable(Type.Integer(), { description }));

/** Response of GET /v1/checkouts/{id}. */
export const Checkout = Type.Object(
  {
    id: Uuid4({ description: "The ID of the object." }),
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    custom_field_data: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Boolean(), DateTime(), Type.Null()]), {
        description: "Values of the custom fields, keyed by field slug.",
      }),
    ),
    payment_processor: PaymentProcessor,
    status: CheckoutStatus,
    client_secret: Type.String({ description: "Secret letting a client update and complete the session." }),
    url: Type.String({ description: "Where the customer reaches the session." }),
    expires_at: DateTime({ description: "When the session expires." }),
    success_url: Type.String({ description: "Redirect target after a successful payment." }),
    return_url: Nullable(Type.String(), { description: "When set, a back button leads there." }),
    embed_origin: Nullable(Type.String(), { description: "Origin of the page embedding the checkout, if embedded." }),
    amount: Type.Integer({ description: "Amount in cents before discounts and taxes." }),
    seats: seatCount("Preset seat count (seat-based prices only)."),
    min_seats: seatCount("Lowest seat count allowed (seat-based prices only)."),
    max_seats: seatCount("Highest seat count allowed (seat-based prices only)."),
    discount_amount: Type.Integer({ description: "Discount in cents." }),
    net_amount: Type.Integer({ description: "Amount in cents after discounts, before taxes." }),
    tax_amount: Nullable(Type.Integer(), { description: "Tax in cents; null until it can be computed." }),
    tax_behavior: Nullable(TaxBehavior, { description: "Whether prices include tax; null until tax is computed." }),
    total_amount: Type.Integer({ description: "Amount in cents after discounts and taxes." }),
    currency: Type.String({ description: "Currency code of the session." }),
    allow_trial: Nullable(Type.Boolean(), { description: "false disables the trial even if the product has one." }),
    active_trial_interval: Nullable(TrialInterval(), {
      description: "Trial unit in effect: the checkout's own, else the product's.",
    }),
    active_trial_interval_count: Nullable(Type.Integer(), {
      description: "Trial length in effect: the checkout's own, else the product's.",
    }),
    trial_end: Nullable(DateTime(), { description: "End of the trial period, if any." }),
    organization_id: Uuid4({ description: "ID of the organization owning the session." }),
    product_id: Nullable(Uuid4(), { description: "ID of the selected product." }),
    product_price_id: Nullable(Uuid4(), { description: "ID of the selected price.", deprecated: true }),
    discount_id: Nullable(Uuid4(), { description: "ID of the applied discount." }),
    allow_discount_codes: Type.Boolean({
      description: "Whether the customer may enter discount codes; a preset discount stays applied either way.",
    }),
    require_billing_address: Type.Boolean({ description: "Whether a full billing address is required, not only the country." }),
    is_discount_applicable: Type.Boolean({ description: "Whether a discount can apply to the selected price." }),
    is_free_product_price: Type.Boolean({ description: "Whether the price is free, discounts aside." }),
    is_payment_required: Type.Boolean({ description: "Whether a payment has to be made." }),
    is_payment_setup_required: Type.Boolean({ description: "Whether a payment method has to be set up, whatever the amount." }),
    is_payment_form_required: Type.Boolean({ description: "Whether the payment form has to be shown." }),
    customer_id: Nullable(Uuid4()),
    is_business_customer: Type.Boolean({
      description: "Whether the buyer is a business; if so billing name and full address are required.",
    }),
    customer_name: Nullable(Type.String(), { description: "Name of the customer." }),
    customer_email: Nullable(Type.String(), { description: "Email address of the customer." }),
    // The reference declares a pydantic-specific IP format; kept as a plain string so validators do not reject it.
    customer_ip_address: Nullable(Type.String({ description: "IPv4 or IPv6 address." })),
    customer_billing_name: Nullable(Type.String()),
    customer_billing_address: Nullable(Address, { description: "Billing address of the customer." }),
    customer_tax_id: Nullable(Type.String()),
    locale: Type.Optional(Nullable(Type.String())),
    payment_method_type: Nullable(Type.String(), {
      description: "Payment method chosen in the form, e.g. `card`, `apple_pay`, `upi`.",
    }),
    payment_processor_metadata: Type.Record(Type.String(), Type.String()),
    billing_address_fields: CheckoutBillingAddressFields,
    trial_interval: Nullable(TrialInterval(), { description: "Unit of the trial period." }),
    trial_interval_count: Nullable(Type.Integer(), { description: "Number of trial interval units." }),
    metadata: MetadataOutput(),
    external_customer_id: Nullable(Type.String(), {
      description: "Customer ID in the caller's system, linked to the resulting order.",
    }),
    products: Type.Array(CheckoutProduct, { description: "Products the customer can choose from." }),
    product: Nullable(CheckoutProduct, { description: "Selected product." }),
    product_price: Nullable(AnyProductPrice, { description: "Price of the selected product.", deprecated: true }),
    prices: Nullable(UuidRecord(Type.Array(AnyProductPrice)), { description: "Prices per product ID." }),
    discount: Nullable(CheckoutDiscount),
    subscription_id: Nullable(Uuid4()),
    attached_custom_fields: Nullable(Type.Array(AttachedCustomField)),
    customer_metadata: Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Boolean()])),
  },
  { title: "Checkout", description: "Checkout session as read with an access token." },
);
export type Checkout = Static<typeof Checkout>;

/** What the buyer's client sees: the merchant-only fields are left out, the seller is added. */
export const MERCHANT_ONLY_FIELDS = [
  "metadata",
  "customer_metadata",
  "external_customer_id",
  "subscription_id",
  "trial_interval",
  "trial_interval_count",
] as const;
const {
  metadata: _metadata,
  customer_metadata: _customerMetadata,
  external_customer_id: _externalId,
  subscription_id: _subscriptionId,
  trial_interval: _trialInterval,
  trial_interval_count: _trialCount,
  ...sharedProperties
} = Checkout.properties;
const publicProperties = { ...sharedProperties, organization: CheckoutOrganization };

export const CheckoutPublic = Type.Object(publicProperties, {
  title: "CheckoutPublic",
  description: "Checkout session as its client secret reads it.",
});
export type CheckoutPublic = Static<typeof CheckoutPublic>;

export const CheckoutPublicConfirmed = Type.Object(
  {
    ...publicProperties,
    status: Type.Literal("confirmed"),
    customer_session_token: Nullable(Type.String(), { description: "Customer session token for the buyer's portal." }),
  },
  { title: "CheckoutPublicConfirmed", description: "Checkout session right after its confirmation." },
);
export type CheckoutPublicConfirmed = Static<typeof CheckoutPublicConfirmed>;
