import { Type, type Static, type TProperties } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery, CATALOG_SORTING } from "../../schema/pagination.ts";
import { DateTime, MetadataInput, MetadataOutput, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { TrialInterval } from "../../schema/extra-primitives.ts";
import { HttpUrl } from "../checkouts/checkout-inputs.schemas.ts";
import { PaymentProcessor } from "../payments/payment-methods.schemas.ts";
import { OrderDiscount } from "../discounts/discounts.schemas.ts";
import { CheckoutProduct } from "../products/products.schemas.ts";

export const CheckoutLinkProduct = Type.Object(
  { ...CheckoutProduct.properties, metadata: MetadataOutput() },
  { title: "CheckoutLinkProduct", description: "Product offered by a checkout link." },
);
export type CheckoutLinkProduct = Static<typeof CheckoutLinkProduct>;

export const CheckoutLink = Type.Object(
  {
    id: Uuid4({ description: "The ID of the object." }),
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    trial_interval: Nullable(TrialInterval(), { description: "The interval unit for the trial period." }),
    trial_interval_count: Nullable(Type.Integer(), { description: "The number of interval units for the trial period." }),
    metadata: MetadataOutput(),
    payment_processor: PaymentProcessor,
    client_secret: Type.String({ description: "Client secret used to access the checkout link." }),
    success_url: Nullable(Type.String(), { description: "URL where the customer is redirected after a successful payment." }),
    return_url: Nullable(Type.String(), { description: "When set, a back button is shown in the checkout to return to this URL." }),
    label: Nullable(Type.String(), { description: "Optional label to distinguish links internally." }),
    allow_discount_codes: Type.Boolean({ description: "Whether to allow the customer to apply discount codes." }),
    require_billing_address: Type.Boolean({ description: "Whether to require the customer to fill their full billing address." }),
    discount_id: Nullable(Uuid4(), { description: "ID of the discount applied to the checkout." }),
    seats: Nullable(Type.Integer(), { description: "Seat count the checkouts opened by the link are locked to." }),
    organization_id: Uuid4({ description: "The organization ID." }),
    products: Type.Array(CheckoutLinkProduct),
    discount: Nullable(Type.Union([...OrderDiscount.anyOf], { title: "CheckoutLinkDiscount" })),
    url: Type.String({ readOnly: true, description: "Address that opens a new checkout session from the link." }),
  },
  { title: "CheckoutLink", description: "Checkout link data." },
);
export type CheckoutLink = Static<typeof CheckoutLink>;

// Caps on text the reference leaves open: docs/decisions.md, "Checkout links".
const linkFields = {
  metadata: Type.Optional(MetadataInput()),
  trial_interval: Type.Optional(Nullable(TrialInterval(), { description: "The interval unit for the trial period." })),
  trial_interval_count: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))),
  label: Type.Optional(Nullable(Type.String({ maxLength: 256 }), { description: "Optional label to distinguish links internally." })),
  discount_id: Type.Optional(Nullable(Uuid4(), { description: "ID of the discount to apply to the checkout." })),
  seats: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10_000 }), { description: "Seat count to lock checkouts to." })),
  success_url: Type.Optional(HttpUrl("Where the customer lands after paying; `{CHECKOUT_ID}` is substituted.")),
  return_url: Type.Optional(HttpUrl("When set, the checkout shows a back link to it.")),
};

const createShape = <P extends TProperties>(title: string, own: P) =>
  Type.Object(
    {
      ...linkFields,
      payment_processor: Type.Literal("stripe", { description: "Payment processor to use." }),
      allow_discount_codes: Type.Optional(Type.Boolean({ default: true })),
      require_billing_address: Type.Optional(Type.Boolean({ default: false })),
      ...own,
    },
    { title },
  );

const ProductIds = Type.Array(Uuid4(), { minItems: 1, maxItems: 100, description: "Products to offer, in display order." });

export const CheckoutLinkCreate = Type.Union(
  [
    createShape("CheckoutLinkCreateProductPrice", { product_price_id: Uuid4({ description: "Price whose product to offer." }) }),
    createShape("CheckoutLinkCreateProduct", { product_id: Uuid4({ description: "Product to offer." }) }),
    createShape("CheckoutLinkCreateProducts", { products: ProductIds }),
  ],
  { title: "CheckoutLinkCreate" },
);
export type CheckoutLinkCreate = Static<typeof CheckoutLinkCreate>;

export const CheckoutLinkUpdate = Type.Object(
  {
    ...linkFields,
    products: Type.Optional(Nullable(ProductIds)),
    allow_discount_codes: Type.Optional(Nullable(Type.Boolean())),
    require_billing_address: Type.Optional(Nullable(Type.Boolean())),
  },
  { title: "CheckoutLinkUpdate" },
);
export type CheckoutLinkUpdate = Static<typeof CheckoutLinkUpdate>;

export const CheckoutLinkSortKeys = ["created_at", "label", "success_url", "allow_discount_codes"] as const;
export const CheckoutLinkListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  product_id: OneOrMany(Uuid4(), "Filter by product ID.", { listOnly: true }),
  ...PaginationQuery,
  sorting: SortingQuery(CheckoutLinkSortKeys, ["created_at"], CATALOG_SORTING, { title: "CheckoutLinkSortProperty" }),
});
export type CheckoutLinkListQuery = Static<typeof CheckoutLinkListQuery>;

export const ListResourceCheckoutLink = ListResource(CheckoutLink, { title: "ListResource[CheckoutLink]" });

/** The path parameter of the redirect: the link's client secret. */
export const CheckoutLinkSecretParams = Type.Object({
  client_secret: Type.String({ maxLength: 256, description: "The checkout link client secret." }),
});
