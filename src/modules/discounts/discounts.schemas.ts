import { Type, type Static, type TProperties } from "@sinclair/typebox";
import { DateTime, MetadataInput, MetadataOutput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { ProductBaseFields } from "../products/products.schemas.ts";
import { PresentmentCurrency } from "../organizations/organizations.schemas.ts";
import { PaginationQuery, ListResource, OneOrMany, SortingQuery, CATALOG_SORTING } from "../../schema/pagination.ts";

export const DiscountDurationValues = ["once", "forever", "repeating"] as const;
export const DiscountDuration = StringEnum(DiscountDurationValues, { title: "DiscountDuration" });
export type DiscountDuration = Static<typeof DiscountDuration>;

export const DiscountTypeValues = ["fixed", "percentage"] as const;
export const DiscountType = StringEnum(DiscountTypeValues, { title: "DiscountType" });
export type DiscountType = Static<typeof DiscountType>;

// The reference types `duration` and `type` as the full enums on every shape (no per-shape const),
// so the four shapes are told apart structurally: basis_points vs amounts, duration_in_months.

const durationInMonths = Type.Integer({ description: "Number of months the discount applies for." });

const fixedAmountFields = {
  amount: Type.Integer({ deprecated: true, description: "Fixed amount in cents; superseded by `amounts`." }),
  currency: Type.String({ deprecated: true, description: "Currency of `amount`; superseded by `amounts`." }),
  amounts: Type.Record(Type.String(), Type.Integer(), {
    examples: [{ usd: 500, eur: 450 }],
    description: "Fixed amount taken off the total, per currency, in minor units.",
  }),
};

const basisPoints = Type.Integer({
  examples: [2500],
  description: "Percentage in basis points (1/100th of a percent); 2500 means 25%.",
});

const checkoutIdentityFields = {
  id: Uuid4({ description: "The ID of the object." }),
  name: Type.String(),
  code: Nullable(Type.String()),
};

/**
 * The four discount shapes, over the fields they share: fixed or percentage, once/forever or
 * repeating (which adds `duration_in_months`).
 */
function discountShapes<P extends TProperties>(prefix: "CheckoutDiscount" | "Discount", shared: P, suffix = "") {
  const shape = <E extends TProperties>(name: string, description: string, extra: E) =>
    Type.Object(
      { duration: DiscountDuration, type: DiscountType, ...extra, ...shared },
      { title: `${prefix}${name}${suffix}`, description },
    );
  const months = { duration_in_months: durationInMonths };
  return {
    fixedOnceForever: shape("FixedOnceForeverDuration", "Fixed-amount discount applied once or forever.", fixedAmountFields),
    fixedRepeat: shape("FixedRepeatDuration", "Fixed-amount discount applied for a number of months.", { ...months, ...fixedAmountFields }),
    percentageOnceForever: shape("PercentageOnceForeverDuration", "Percentage discount applied once or forever.", {
      basis_points: basisPoints,
    }),
    percentageRepeat: shape("PercentageRepeatDuration", "Percentage discount applied for a number of months.", {
      ...months,
      basis_points: basisPoints,
    }),
  };
}

const checkoutShapes = discountShapes("CheckoutDiscount", checkoutIdentityFields);
export const CheckoutDiscountFixedOnceForeverDuration = checkoutShapes.fixedOnceForever;
export type CheckoutDiscountFixedOnceForeverDuration = Static<typeof CheckoutDiscountFixedOnceForeverDuration>;
export const CheckoutDiscountFixedRepeatDuration = checkoutShapes.fixedRepeat;
export type CheckoutDiscountFixedRepeatDuration = Static<typeof CheckoutDiscountFixedRepeatDuration>;
export const CheckoutDiscountPercentageOnceForeverDuration = checkoutShapes.percentageOnceForever;
export type CheckoutDiscountPercentageOnceForeverDuration = Static<typeof CheckoutDiscountPercentageOnceForeverDuration>;
export const CheckoutDiscountPercentageRepeatDuration = checkoutShapes.percentageRepeat;
export type CheckoutDiscountPercentageRepeatDuration = Static<typeof CheckoutDiscountPercentageRepeatDuration>;

// Repeat shapes come first in the unions: a repeating discount also satisfies the once/forever shape,
// and serializers that pick the first matching branch would otherwise drop `duration_in_months`.

/** The discount embedded in a checkout: one of the four shapes above. */
export const CheckoutDiscount = Type.Union([
  CheckoutDiscountFixedRepeatDuration,
  CheckoutDiscountFixedOnceForeverDuration,
  CheckoutDiscountPercentageRepeatDuration,
  CheckoutDiscountPercentageOnceForeverDuration,
]);
export type CheckoutDiscount = Static<typeof CheckoutDiscount>;

export const DiscountProduct = Type.Object(
  { metadata: MetadataOutput(), ...ProductBaseFields },
  { title: "DiscountProduct", description: "Product a discount applies to." },
);
export type DiscountProduct = Static<typeof DiscountProduct>;

const discountBaseFields = {
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  id: Uuid4({ description: "The ID of the object." }),
  metadata: MetadataOutput(),
  name: Type.String({ description: "Name of the discount, shown to the customer when applied." }),
  code: Nullable(Type.String(), { description: "Code customers enter at checkout to apply the discount." }),
  starts_at: Nullable(DateTime(), { description: "Time from which the discount can be redeemed." }),
  ends_at: Nullable(DateTime(), { description: "Time after which the discount can no longer be redeemed." }),
  max_redemptions: Nullable(Type.Integer(), { description: "Redemption limit across all customers." }),
  max_redemptions_per_customer: Nullable(Type.Integer(), { description: "Redemption limit per customer." }),
  redemptions_count: Type.Integer({ description: "Number of redemptions so far." }),
  organization_id: Uuid4({ description: "ID of the organization owning the discount." }),
};

const recordShapes = discountShapes("Discount", { ...discountBaseFields, products: Type.Array(DiscountProduct) });
export const DiscountFixedOnceForeverDuration = recordShapes.fixedOnceForever;
export type DiscountFixedOnceForeverDuration = Static<typeof DiscountFixedOnceForeverDuration>;
export const DiscountFixedRepeatDuration = recordShapes.fixedRepeat;
export type DiscountFixedRepeatDuration = Static<typeof DiscountFixedRepeatDuration>;
export const DiscountPercentageOnceForeverDuration = recordShapes.percentageOnceForever;
export type DiscountPercentageOnceForeverDuration = Static<typeof DiscountPercentageOnceForeverDuration>;
export const DiscountPercentageRepeatDuration = recordShapes.percentageRepeat;
export type DiscountPercentageRepeatDuration = Static<typeof DiscountPercentageRepeatDuration>;

const baseShapes = discountShapes("Discount", discountBaseFields, "Base");
export const DiscountFixedOnceForeverDurationBase = baseShapes.fixedOnceForever;
export const DiscountPercentageRepeatDurationBase = baseShapes.percentageRepeat;

/** The discount embedded in an order: the record without its products. */
export const OrderDiscount = Type.Union(
  [baseShapes.fixedRepeat, baseShapes.fixedOnceForever, baseShapes.percentageRepeat, baseShapes.percentageOnceForever],
  {
    title: "OrderDiscount",
  },
);
export type OrderDiscount = Static<typeof OrderDiscount>;

/** Response of GET /v1/discounts/{id}. */
export const Discount = Type.Union(
  [DiscountFixedRepeatDuration, DiscountFixedOnceForeverDuration, DiscountPercentageRepeatDuration, DiscountPercentageOnceForeverDuration],
  { title: "Discount" },
);
export type Discount = Static<typeof Discount>;

// ---------------------------------------------------------------------------------------------
// Requests.
// ---------------------------------------------------------------------------------------------

const AmountInput = Type.Integer({ minimum: 0, maximum: 999_999_999_999 });

const discountCreateFields = {
  metadata: Type.Optional(MetadataInput()),
  name: Type.String({ minLength: 1, maxLength: 256, description: "Name of the discount, shown to the customer when applied." }),
  code: Type.Optional(
    Nullable(Type.String({ minLength: 3, maxLength: 256, pattern: "^[a-zA-Z0-9]+$" }), {
      description: "Code customers enter at checkout: 3 to 256 letters and digits. Without one, only the API applies the discount.",
    }),
  ),
  starts_at: Type.Optional(Nullable(DateTime(), { description: "Time from which the discount can be redeemed." })),
  ends_at: Type.Optional(Nullable(DateTime(), { description: "Time after which the discount can no longer be redeemed." })),
  max_redemptions: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }))),
  max_redemptions_per_customer: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }))),
  products: Type.Optional(Nullable(Type.Array(Uuid4(), { maxItems: 100, description: "Products the discount is restricted to." }))),
  organization_id: Type.Optional(Nullable(Uuid4({ description: "Owning organization; required with a personal token." }))),
  duration: DiscountDuration,
  duration_in_months: Type.Optional(
    Nullable(Type.Integer({ minimum: 1, maximum: 999 }), { description: "Months the discount applies for; only with `repeating`." }),
  ),
};

export const DiscountFixedCreate = Type.Object(
  {
    ...discountCreateFields,
    type: Type.Literal("fixed"),
    amount: Type.Optional(Nullable(AmountInput, { deprecated: true, description: "Superseded by `amounts`." })),
    currency: Type.Optional(Nullable(PresentmentCurrency, { deprecated: true, description: "Currency of `amount`." })),
    amounts: Type.Optional(
      Nullable(Type.Record(Type.String(), AmountInput, { propertyNames: PresentmentCurrency, minProperties: 1 }), {
        description: "Amount taken off, per currency, in minor units.",
      }),
    ),
  },
  { title: "DiscountFixedCreate" },
);

export const DiscountPercentageCreate = Type.Object(
  { ...discountCreateFields, type: Type.Literal("percentage"), basis_points: Type.Integer({ minimum: 1, maximum: 10_000 }) },
  { title: "DiscountPercentageCreate" },
);

export const DiscountCreate = Type.Union([DiscountFixedCreate, DiscountPercentageCreate], { title: "DiscountCreate" });
export type DiscountCreate = Static<typeof DiscountCreate>;

/**
 * Every field optional: absent leaves it as it is, and so does null where the discount must have a
 * value (null clears a code, a window's end or a limit). `duration` and `type` may only repeat the
 * discount's own; the money fields and `duration_in_months` are locked once it was redeemed.
 */
export const DiscountUpdate = Type.Object(
  {
    metadata: Type.Optional(MetadataInput()),
    name: Type.Optional(Nullable(discountCreateFields.name)),
    code: discountCreateFields.code,
    starts_at: discountCreateFields.starts_at,
    ends_at: discountCreateFields.ends_at,
    max_redemptions: discountCreateFields.max_redemptions,
    max_redemptions_per_customer: discountCreateFields.max_redemptions_per_customer,
    duration: Type.Optional(Nullable(DiscountDuration)),
    duration_in_months: discountCreateFields.duration_in_months,
    type: Type.Optional(Nullable(DiscountType)),
    amount: DiscountFixedCreate.properties.amount,
    currency: DiscountFixedCreate.properties.currency,
    amounts: DiscountFixedCreate.properties.amounts,
    basis_points: Type.Optional(Nullable(DiscountPercentageCreate.properties.basis_points)),
    products: Type.Optional(
      Nullable(Type.Array(Uuid4(), { maxItems: 100, description: "Products the discount is restricted to; replaces the list." })),
    ),
  },
  { title: "DiscountUpdate" },
);
export type DiscountUpdate = Static<typeof DiscountUpdate>;

export const DiscountSortKeys = ["created_at", "name", "code", "redemptions_count", "ends_at"] as const;
export const DiscountListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by name or code." })),
  ...PaginationQuery,
  sorting: SortingQuery(DiscountSortKeys, ["-created_at"], CATALOG_SORTING, { title: "DiscountSortProperty" }),
});
export type DiscountListQuery = Static<typeof DiscountListQuery>;

export const ListResourceDiscount = ListResource(Discount, { title: "ListResource[Discount]" });
export type ListResourceDiscount = Static<typeof ListResourceDiscount>;
