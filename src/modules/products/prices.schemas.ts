import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, RecurringInterval, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { DecimalString, TaxBehaviorOption } from "../../schema/extra-primitives.ts";

export const ProductPriceSourceValues = ["catalog", "ad_hoc"] as const;
export const ProductPriceSource = StringEnum(ProductPriceSourceValues, {
  title: "ProductPriceSource",
  description: "`catalog` for a predefined price, `ad_hoc` for one created on the fly for a checkout.",
});
export type ProductPriceSource = Static<typeof ProductPriceSource>;

export const SeatTierTypeValues = ["volume", "graduated"] as const;
export const SeatTierType = StringEnum(SeatTierTypeValues, { title: "SeatTierType" });
export type SeatTierType = Static<typeof SeatTierType>;

export const MeterUnitValues = ["scalar", "token", "custom"] as const;
export const MeterUnit = StringEnum(MeterUnitValues, { title: "MeterUnit" });
export type MeterUnit = Static<typeof MeterUnit>;

// Key order follows the reference so serialized prices read the same.
const headFields = {
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  id: Uuid4({ description: "ID of the price." }),
  source: ProductPriceSource,
};

const tailFields = {
  price_currency: Type.String({ description: "Currency the customer is charged in." }),
  tax_behavior: Nullable(TaxBehaviorOption(), {
    description: "Tax behavior of the price; null falls back to the organization default.",
  }),
  is_archived: Type.Boolean({ description: "Whether the price is archived and no longer offered." }),
  product_id: Uuid4({ description: "ID of the product the price belongs to." }),
};

const legacyFields = {
  type: Type.Literal("recurring", { description: "Kind of price." }),
  recurring_interval: RecurringInterval({ description: "Billing interval of the price." }),
};

const customAmountFields = {
  minimum_amount: Type.Integer({ description: "Lowest amount the customer may pay, in cents; 0 means free or pay what you want." }),
  maximum_amount: Nullable(Type.Integer(), { description: "Highest amount the customer may pay, in cents." }),
  preset_amount: Nullable(Type.Integer(), { description: "Amount proposed to the customer initially, in cents." }),
};

const priceAmount = Type.Integer({ description: "Price in cents." });
const legacyFlag = Type.Literal(true, { readOnly: true });

export const ProductPriceFixed = Type.Object(
  {
    ...headFields,
    amount_type: Type.Literal("fixed"),
    ...tailFields,
    price_amount: priceAmount,
  },
  { title: "ProductPriceFixed", description: "Fixed price of a product." },
);
export type ProductPriceFixed = Static<typeof ProductPriceFixed>;

export const ProductPriceCustom = Type.Object(
  {
    ...headFields,
    amount_type: Type.Literal("custom"),
    ...tailFields,
    ...customAmountFields,
  },
  { title: "ProductPriceCustom", description: "Pay-what-you-want price of a product." },
);
export type ProductPriceCustom = Static<typeof ProductPriceCustom>;

export const ProductPriceSeatTier = Type.Object(
  {
    min_seats: Type.Integer({ minimum: 1, description: "Lowest seat count of the tier, inclusive." }),
    max_seats: Type.Optional(
      Nullable(Type.Integer({ minimum: 1 }), { description: "Highest seat count of the tier, inclusive; null for no limit." }),
    ),
    price_per_seat: Type.Integer({ minimum: 0, description: "Price of one seat in this tier, in cents." }),
  },
  { title: "ProductPriceSeatTier", description: "One tier of a seat-based price." },
);
export type ProductPriceSeatTier = Static<typeof ProductPriceSeatTier>;

export const ProductPriceSeatTiersOutput = Type.Object(
  {
    seat_tier_type: Type.Optional(
      StringEnum(SeatTierTypeValues, {
        title: "SeatTierType",
        default: "volume",
        description: "`volume` prices every seat at the matching tier; `graduated` prices each tier's seats separately.",
      }),
    ),
    tiers: Type.Array(ProductPriceSeatTier, { minItems: 1, description: "Pricing tiers." }),
    minimum_seats: Type.Integer({ readOnly: true, description: "Fewest seats that can be bought, taken from the first tier." }),
    maximum_seats: Nullable(Type.Integer(), {
      readOnly: true,
      description: "Most seats that can be bought, taken from the last tier; null for no limit.",
    }),
  },
  { title: "ProductPriceSeatTiers", description: "Tier list of a seat-based price." },
);
export type ProductPriceSeatTiersOutput = Static<typeof ProductPriceSeatTiersOutput>;

export const ProductPriceSeatBased = Type.Object(
  {
    ...headFields,
    amount_type: Type.Literal("seat_based"),
    ...tailFields,
    seat_tiers: ProductPriceSeatTiersOutput,
  },
  { title: "ProductPriceSeatBased", description: "Seat-based price of a product." },
);
export type ProductPriceSeatBased = Static<typeof ProductPriceSeatBased>;

export const ProductPriceMeter = Type.Object(
  {
    id: Uuid4({ description: "The ID of the object." }),
    name: Type.String({ description: "Name of the meter." }),
    unit: MeterUnit,
    custom_label: Nullable(Type.String(), { description: "Label of the custom unit." }),
    custom_multiplier: Nullable(Type.Integer(), { description: "Factor from the base unit to the displayed scale." }),
  },
  { title: "ProductPriceMeter", description: "Meter attached to a metered price." },
);
export type ProductPriceMeter = Static<typeof ProductPriceMeter>;

export const ProductPriceMeteredUnit = Type.Object(
  {
    ...headFields,
    amount_type: Type.Literal("metered_unit"),
    ...tailFields,
    unit_amount: DecimalString({ description: "Price of one unit in cents, as a decimal string." }),
    cap_amount: Nullable(Type.Integer(), {
      description: "Upper bound in cents charged whatever the consumption.",
    }),
    meter_id: Uuid4({ description: "ID of the meter the price is based on." }),
    meter: ProductPriceMeter,
  },
  { title: "ProductPriceMeteredUnit", description: "Usage-based price of a product with a fixed unit price." },
);
export type ProductPriceMeteredUnit = Static<typeof ProductPriceMeteredUnit>;

/** Current prices, discriminated by `amount_type`. */
export const ProductPrice = Type.Union([ProductPriceFixed, ProductPriceCustom, ProductPriceSeatBased, ProductPriceMeteredUnit], {
  title: "ProductPrice",
});
export type ProductPrice = Static<typeof ProductPrice>;

export const LegacyRecurringProductPriceFixed = Type.Object(
  {
    ...headFields,
    amount_type: Type.Literal("fixed"),
    ...tailFields,
    ...legacyFields,
    price_amount: priceAmount,
    legacy: legacyFlag,
  },
  {
    title: "LegacyRecurringProductPriceFixed",
    description: "Deprecated fixed recurring price; the interval now lives on the product.",
  },
);
export type LegacyRecurringProductPriceFixed = Static<typeof LegacyRecurringProductPriceFixed>;

export const LegacyRecurringProductPriceCustom = Type.Object(
  {
    ...headFields,
    amount_type: Type.Literal("custom"),
    ...tailFields,
    ...legacyFields,
    ...customAmountFields,
    legacy: legacyFlag,
  },
  {
    title: "LegacyRecurringProductPriceCustom",
    description: "Deprecated pay-what-you-want recurring price; the interval now lives on the product.",
  },
);
export type LegacyRecurringProductPriceCustom = Static<typeof LegacyRecurringProductPriceCustom>;

/** Prices created before intervals moved to products, discriminated by `amount_type`. */
export const LegacyRecurringProductPrice = Type.Union([LegacyRecurringProductPriceFixed, LegacyRecurringProductPriceCustom], {
  title: "LegacyRecurringProductPrice",
});
export type LegacyRecurringProductPrice = Static<typeof LegacyRecurringProductPrice>;

/** An entry of a product's `prices` list: legacy recurring or current price. */
export const AnyProductPrice = Type.Union([LegacyRecurringProductPrice, ProductPrice]);
export type AnyProductPrice = Static<typeof AnyProductPrice>;
