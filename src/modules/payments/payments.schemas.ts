import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { IdField, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";
import { PaymentProcessor } from "./payment-methods.schemas.ts";

export const PaymentStatusValues = ["pending", "succeeded", "failed"] as const;
export const PaymentStatus = StringEnum(PaymentStatusValues, { title: "PaymentStatus" });

export const PaymentTrigger = StringEnum(
  ["purchase", "subscription_cycle", "retry_dunning", "retry_customer", "retry_payment_method_update", "retry_admin"] as const,
  { title: "PaymentTrigger" },
);

const paymentFields = {
  ...TimestampedFields,
  ...IdField,
  processor: PaymentProcessor,
  status: PaymentStatus,
  amount: Type.Integer({ description: "The payment amount in cents." }),
  currency: Type.String({ description: "The payment currency." }),
  trigger: Nullable(PaymentTrigger, { description: "What started this payment attempt." }),
  decline_reason: Nullable(Type.String(), { description: "Error code, if the payment was declined." }),
  decline_message: Nullable(Type.String(), { description: "Human-readable error message, if the payment was declined." }),
  organization_id: Uuid4(),
  checkout_id: Nullable(Uuid4()),
  order_id: Nullable(Uuid4()),
  processor_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The processor's own references." })),
};

export const CardPaymentMetadata = Type.Object({ brand: Type.String(), last4: Type.String() }, { title: "CardPaymentMetadata" });

export const CardPayment = Type.Object(
  { ...paymentFields, method: Type.Literal("card"), method_metadata: CardPaymentMetadata },
  { title: "CardPayment" },
);
export const GenericPayment = Type.Object({ ...paymentFields, method: Type.String() }, { title: "GenericPayment" });
export const Payment = Type.Union([CardPayment, GenericPayment], { title: "Payment" });
export type Payment = Static<typeof Payment>;

export const ListResourcePayment = ListResource(Payment, { title: "ListResource[Payment]" });
export type ListResourcePayment = Static<typeof ListResourcePayment>;

export const PaymentSortKeys = ["created_at", "status", "amount", "method"] as const;
export type PaymentSortKey = (typeof PaymentSortKeys)[number];

export const PaymentListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  checkout_id: OneOrMany(Uuid4(), "Filter by checkout ID."),
  order_id: OneOrMany(Uuid4(), "Filter by order ID."),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID."),
  status: OneOrMany(PaymentStatus, "Filter by payment status."),
  method: OneOrMany(Type.String({ maxLength: 64 }), "Filter by payment method."),
  customer_email: OneOrMany(Type.String({ maxLength: 320 }), "Filter by customer email."),
  ...PaginationQuery,
  sorting: SortingQuery(PaymentSortKeys, ["-created_at"], { maxItems: 10 }, { title: "PaymentSortProperty" }),
});
export type PaymentListQuery = Static<typeof PaymentListQuery>;
