import { Type, type Static } from "@sinclair/typebox";
import { DateTime, MetadataOutput, Nullable, RecurringInterval, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { TrialInterval } from "../../schema/extra-primitives.ts";
import { AttachedCustomField } from "../custom-fields/custom-fields.schemas.ts";
import { AnyProductPrice } from "./prices.schemas.ts";
import { Benefit, BenefitPublic } from "../benefits/benefits.schemas.ts";
import { ProductMediaFileRead } from "../files/files.schemas.ts";

export * from "./prices.schemas.ts";

export const ProductVisibilityValues = ["draft", "private", "public"] as const;
export const ProductVisibility = StringEnum(ProductVisibilityValues, {
  title: "ProductVisibility",
  description: "Visibility of the product.",
});
export type ProductVisibility = Static<typeof ProductVisibility>;

/** Fields shared by every product representation (full, checkout and discount views). */
export const ProductBaseFields = {
  id: Uuid4({ description: "The ID of the object." }),
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  trial_interval: Nullable(TrialInterval(), { description: "Unit of the trial period." }),
  trial_interval_count: Nullable(Type.Integer(), { description: "Number of trial interval units." }),
  name: Type.String({ description: "Name of the product." }),
  description: Nullable(Type.String(), { description: "Description of the product." }),
  visibility: ProductVisibility,
  recurring_interval: Nullable(RecurringInterval(), {
    description: "Billing interval of the product; null for a one-time purchase.",
  }),
  recurring_interval_count: Nullable(Type.Integer(), {
    description: "Interval units between charges (1 = every interval, 2 = every other one); null for one-time products.",
  }),
  meter_interval: Nullable(RecurringInterval(), {
    description: "Meter cycle, independent of billing; null means it follows the billing interval.",
  }),
  meter_interval_count: Nullable(Type.Integer(), { description: "Meter interval units; null without a meter cycle." }),
  is_recurring: Type.Boolean({ description: "Whether the product is a subscription." }),
  is_archived: Type.Boolean({ description: "Whether the product is archived and no longer offered." }),
  organization_id: Uuid4({ description: "ID of the organization owning the product." }),
};

export { ProductMediaFileRead } from "../files/files.schemas.ts";

const prices = Type.Array(AnyProductPrice, { description: "Prices of the product." });
const medias = Type.Array(ProductMediaFileRead, { description: "Media files attached to the product." });

export const CheckoutProduct = Type.Object(
  {
    ...ProductBaseFields,
    prices,
    benefits: Type.Array(BenefitPublic, { description: "Benefits granted by the product." }),
    medias,
  },
  { title: "CheckoutProduct", description: "Product as shown in a checkout session." },
);
export type CheckoutProduct = Static<typeof CheckoutProduct>;

/** Response of GET /v1/products/{id}. */
export const Product = Type.Object(
  {
    ...ProductBaseFields,
    metadata: MetadataOutput(),
    prices,
    benefits: Type.Array(Benefit, { description: "Benefits granted by the product." }),
    medias,
    attached_custom_fields: Type.Array(AttachedCustomField, { description: "Custom fields attached to the product." }),
  },
  { title: "Product", description: "A product." },
);
export type Product = Static<typeof Product>;
