import { Type, type Static } from "@sinclair/typebox";
import { PaginationQuery, ListResource, MetadataQuery, OneOrMany, SortingQuery, CATALOG_SORTING } from "../../schema/pagination.ts";
import { MetadataInput, Nullable, RecurringInterval, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { TaxBehaviorOption, TrialInterval } from "../../schema/extra-primitives.ts";
import { PresentmentCurrency } from "../organizations/organizations.schemas.ts";
import { ProductPriceSeatTier, SeatTierTypeValues } from "./prices.schemas.ts";
import { Product, ProductVisibility, ProductVisibilityValues } from "./products.schemas.ts";

// Bounds the reference leaves open are documented in docs/decisions.md ("String bounds").
const MAX_AMOUNT = 999_999_999_999;
const Amount = (minimum: number) => Type.Integer({ minimum, maximum: MAX_AMOUNT });

const priceHead = {
  price_currency: Type.Optional({ ...PresentmentCurrency, default: "usd" }),
  tax_behavior: Type.Optional(Nullable(TaxBehaviorOption())),
};

export const ProductPriceFixedCreate = Type.Object(
  { amount_type: Type.Literal("fixed"), ...priceHead, price_amount: Amount(0) },
  { title: "ProductPriceFixedCreate" },
);
export const ProductPriceCustomCreate = Type.Object(
  {
    amount_type: Type.Literal("custom"),
    ...priceHead,
    minimum_amount: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, default: 50 })),
    maximum_amount: Type.Optional(Nullable(Amount(1))),
    preset_amount: Type.Optional(Nullable(Amount(0))),
  },
  { title: "ProductPriceCustomCreate" },
);
/** Not in the 2026-04 create shapes: kept so that free products can be created; emitted as fixed 0. */
export const ProductPriceFreeCreate = Type.Object({ amount_type: Type.Literal("free"), ...priceHead }, { title: "ProductPriceFreeCreate" });
export const ProductPriceSeatTiersInput = Type.Object(
  {
    seat_tier_type: Type.Optional(StringEnum(SeatTierTypeValues, { title: "SeatTierType", default: "volume" })),
    tiers: Type.Array(ProductPriceSeatTier, { minItems: 1, maxItems: 100 }),
  },
  { title: "ProductPriceSeatTiers" },
);
export const ProductPriceSeatBasedCreate = Type.Object(
  { amount_type: Type.Literal("seat_based"), ...priceHead, seat_tiers: ProductPriceSeatTiersInput },
  { title: "ProductPriceSeatBasedCreate" },
);
export const ProductPriceMeteredUnitCreate = Type.Object(
  {
    amount_type: Type.Literal("metered_unit"),
    ...priceHead,
    meter_id: Uuid4({ description: "ID of the meter the price bills." }),
    unit_amount: Type.Union(
      [
        Type.Number({ exclusiveMinimum: 0, maximum: 99_999 }),
        Type.String({ maxLength: 40, pattern: "^(?!^[-+.]*$)[+-]?0*(?:\\d{0,5}|(?=[\\d.]{1,18}0*$)\\d{0,5}\\.\\d{0,12}0*$)" }),
      ],
      { description: "Price per unit in cents, up to 12 decimal places." },
    ),
    cap_amount: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }))),
  },
  { title: "ProductPriceMeteredUnitCreate" },
);

export const ProductPriceCreate = Type.Union([
  ProductPriceFixedCreate,
  ProductPriceCustomCreate,
  ProductPriceFreeCreate,
  ProductPriceSeatBasedCreate,
  ProductPriceMeteredUnitCreate,
]);
export type ProductPriceCreate = Static<typeof ProductPriceCreate>;

export const ExistingProductPrice = Type.Object(
  { id: Uuid4() },
  { title: "ExistingProductPrice", description: "A current price to keep." },
);
export type ExistingProductPrice = Static<typeof ExistingProductPrice>;

// No file-upload endpoints exist here, so this list can only name unknown IDs.
const medias = Type.Optional(Nullable(Type.Array(Uuid4(), { maxItems: 50 }), { description: "IDs of the product's media files." }));
const attachedCustomFields = Type.Array(
  Type.Object(
    {
      custom_field_id: Uuid4({ description: "ID of the custom field to attach." }),
      required: Type.Boolean({ description: "Whether the value is required for this custom field." }),
    },
    { title: "AttachedCustomFieldCreate" },
  ),
  { maxItems: 50, description: "Custom fields to attach, in display order; an update replaces the list." },
);

const Name = Type.String({ minLength: 3, maxLength: 64, description: "Name of the product." });
const Description = Nullable(Type.String({ maxLength: 10_000 }), { description: "Description of the product." });
const TrialCount = Nullable(Type.Integer({ minimum: 1, maximum: 1000 }));
const IntervalCount = Type.Integer({ minimum: 1, maximum: 999 });

const productCreateFields = {
  metadata: Type.Optional(MetadataInput()),
  name: Name,
  description: Type.Optional(Description),
  visibility: Type.Optional({ ...ProductVisibility, default: "public" }),
  prices: Type.Array(ProductPriceCreate, { minItems: 1, maxItems: 100, description: "Prices of the product." }),
  medias,
  attached_custom_fields: Type.Optional(attachedCustomFields),
  organization_id: Type.Optional(Nullable(Uuid4({ description: "Owning organization; required with a personal token." }))),
};

export const ProductCreateRecurring = Type.Object(
  {
    ...productCreateFields,
    trial_interval: Type.Optional(Nullable(TrialInterval())),
    trial_interval_count: Type.Optional(TrialCount),
    recurring_interval: RecurringInterval(),
    recurring_interval_count: Type.Optional({ ...IntervalCount, default: 1 }),
    meter_interval: Type.Optional(Nullable(RecurringInterval())),
    meter_interval_count: Type.Optional(Nullable(IntervalCount)),
  },
  { title: "ProductCreateRecurring" },
);
export const ProductCreateOneTime = Type.Object(
  { ...productCreateFields, recurring_interval: Type.Optional(Type.Null()), recurring_interval_count: Type.Optional(Type.Null()) },
  { title: "ProductCreateOneTime" },
);
export const ProductCreate = Type.Union([ProductCreateRecurring, ProductCreateOneTime], { title: "ProductCreate" });
export type ProductCreate = Static<typeof ProductCreate>;

export const ProductUpdate = Type.Object(
  {
    metadata: Type.Optional(MetadataInput()),
    trial_interval: Type.Optional(Nullable(TrialInterval())),
    trial_interval_count: Type.Optional(TrialCount),
    name: Type.Optional(Nullable(Name)),
    description: Type.Optional(Description),
    recurring_interval: Type.Optional(Nullable(RecurringInterval())),
    recurring_interval_count: Type.Optional(Nullable(IntervalCount)),
    is_archived: Type.Optional(Nullable(Type.Boolean())),
    visibility: Type.Optional(Nullable(ProductVisibility)),
    prices: Type.Optional(
      Nullable(Type.Array(Type.Union([ExistingProductPrice, ProductPriceCreate]), { maxItems: 100 }), {
        description: "The new price list; current prices to keep are listed by ID, the others are archived.",
      }),
    ),
    medias,
    attached_custom_fields: Type.Optional(Nullable(attachedCustomFields)),
  },
  { title: "ProductUpdate" },
);
export type ProductUpdate = Static<typeof ProductUpdate>;

export const ProductBenefitsUpdate = Type.Object(
  { benefits: Type.Array(Uuid4(), { maxItems: 100, description: "IDs of the benefits granted by the product, in order." }) },
  { title: "ProductBenefitsUpdate" },
);
export type ProductBenefitsUpdate = Static<typeof ProductBenefitsUpdate>;

export const ProductSortKeys = ["created_at", "name", "price_amount_type", "price_amount"] as const;
export const ProductListQuery = Type.Object({
  id: OneOrMany(Uuid4(), "Filter by product ID.", { listOnly: true }),
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by product name." })),
  is_archived: Type.Optional(Type.Boolean({ description: "Filter on archived products." })),
  is_recurring: Type.Optional(Type.Boolean({ description: "Filter on recurring products." })),
  benefit_id: OneOrMany(Uuid4(), "Filter products granting a benefit.", { listOnly: true }),
  visibility: Type.Optional(Type.Array(StringEnum(ProductVisibilityValues), { maxItems: 3, description: "Filter by visibility." })),
  metadata: MetadataQuery(),
  ...PaginationQuery,
  sorting: SortingQuery(ProductSortKeys, ["-created_at"], CATALOG_SORTING, { title: "ProductSortProperty" }),
});
export type ProductListQuery = Static<typeof ProductListQuery>;

export const ListResourceProduct = ListResource(Product, { title: "ListResource[Product]" });
export type ListResourceProduct = Static<typeof ListResourceProduct>;
