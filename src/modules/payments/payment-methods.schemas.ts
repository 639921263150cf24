import { Type, type Static } from "@sinclair/typebox";
import { ListResource, PaginationQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";

export const PaymentProcessor = StringEnum(["stripe"] as const, { title: "PaymentProcessor" });
export type PaymentProcessor = Static<typeof PaymentProcessor>;

export const PaymentMethodCardMetadata = Type.Object(
  {
    brand: Type.String(),
    last4: Type.String(),
    exp_month: Type.Integer(),
    exp_year: Type.Integer(),
    wallet: Type.Optional(Nullable(Type.String())),
  },
  { title: "PaymentMethodCardMetadata" },
);

const methodFields = {
  id: Uuid4({ description: "The ID of the object." }),
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  // Saved methods are always reported as the reference's only processor, whichever adapter saved them.
  processor: PaymentProcessor,
  customer_id: Uuid4(),
};
const cardFields = { ...methodFields, type: Type.Literal("card"), method_metadata: PaymentMethodCardMetadata };
const genericFields = { ...methodFields, type: Type.String() };
const isDefault = {
  is_default: Type.Boolean({ description: "Whether this payment method is the customer's default payment method." }),
};

/**
 * A saved method as its customer sees it in the portal. The reference names the portal's item
 * `CustomerPaymentMethod` (without `is_default`) and the organization's `PaymentMethod` (with it).
 */
export const PaymentMethodCard = Type.Object(cardFields, { title: "PaymentMethodCard" });
export const PaymentMethodGeneric = Type.Object(genericFields, { title: "PaymentMethodGeneric" });
export const CustomerPaymentMethod = Type.Union([PaymentMethodCard, PaymentMethodGeneric], { title: "CustomerPaymentMethod" });
export type CustomerPaymentMethod = Static<typeof CustomerPaymentMethod>;
export const ListResourceCustomerPaymentMethod = ListResource(CustomerPaymentMethod, { title: "ListResource[CustomerPaymentMethod]" });
export type ListResourceCustomerPaymentMethod = Static<typeof ListResourceCustomerPaymentMethod>;

/** A customer's saved method as the organization sees it. */
export const CustomerPaymentMethodCard = Type.Object({ ...cardFields, ...isDefault }, { title: "CustomerPaymentMethodCard" });
export const CustomerPaymentMethodGeneric = Type.Object({ ...genericFields, ...isDefault }, { title: "CustomerPaymentMethodGeneric" });
export const PaymentMethod = Type.Union([CustomerPaymentMethodCard, CustomerPaymentMethodGeneric], { title: "PaymentMethod" });
export type PaymentMethod = Static<typeof PaymentMethod>;
export const ListResourcePaymentMethod = ListResource(PaymentMethod, { title: "ListResource[PaymentMethod]" });
export type ListResourcePaymentMethod = Static<typeof ListResourcePaymentMethod>;

export const PaymentMethodListQuery = Type.Object({ ...PaginationQuery });
export type PaymentMethodListQuery = Static<typeof PaymentMethodListQuery>;

export const CustomerPaymentMethodCreate = Type.Object(
  {
    confirmation_token_id: Type.String({ maxLength: 256 }),
    set_default: Type.Boolean(),
    // Where the processor sends the customer back after a 3-D Secure step; the sandbox has none.
    return_url: Type.String({ maxLength: 2048 }),
  },
  { title: "CustomerPaymentMethodCreate" },
);
export type CustomerPaymentMethodCreate = Static<typeof CustomerPaymentMethodCreate>;

export const CustomerPaymentMethodConfirm = Type.Object(
  { setup_intent_id: Type.String({ maxLength: 256 }), set_default: Type.Boolean() },
  { title: "CustomerPaymentMethodConfirm" },
);
export type CustomerPaymentMethodConfirm = Static<typeof CustomerPaymentMethodConfirm>;

export const CustomerPaymentMethodCreateSucceededResponse = Type.Object(
  { status: Type.Literal("succeeded"), payment_method: CustomerPaymentMethod },
  { title: "CustomerPaymentMethodCreateSucceededResponse" },
);
export const CustomerPaymentMethodCreateRequiresActionResponse = Type.Object(
  { status: Type.Literal("requires_action"), client_secret: Type.String() },
  { title: "CustomerPaymentMethodCreateRequiresActionResponse" },
);
export const CustomerPaymentMethodCreateResponse = Type.Union(
  [CustomerPaymentMethodCreateSucceededResponse, CustomerPaymentMethodCreateRequiresActionResponse],
  { title: "CustomerPaymentMethodCreateResponse" },
);
export type CustomerPaymentMethodCreateResponse = Static<typeof CustomerPaymentMethodCreateResponse>;
