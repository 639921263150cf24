import { Type, type Static } from "@sinclair/typebox";
import { OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { MetadataInput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { RefundReasonValues } from "./refunds.schemas.ts";

/** The reasons a caller may give: every reason but the system's `dispute_prevention`. */
const RefundCreateReasons = RefundReasonValues.filter((reason) => reason !== "dispute_prevention");

export const RefundCreate = Type.Object(
  {
    metadata: Type.Optional(MetadataInput({ description: "Key-value object allowing you to store additional information." })),
    order_id: Uuid4(),
    reason: StringEnum(RefundCreateReasons, { description: "Reason for the refund." }),
    // The cap is the project's bound on amounts (docs/decisions.md, "String bounds").
    amount: Type.Integer({
      exclusiveMinimum: 0,
      maximum: 999_999_999_999,
      description: "Amount to refund in cents, before tax. Minimum is 1.",
    }),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }), { description: "An internal comment about the refund." })),
    revoke_benefits: Type.Optional(
      Type.Boolean({ default: false, description: "Revoke the benefits the order granted (one-time purchases only)." }),
    ),
  },
  { title: "RefundCreate" },
);
export type RefundCreate = Static<typeof RefundCreate>;

export const RefundSortKeys = ["created_at", "amount"] as const;

export const RefundListQuery = Type.Object({
  id: OneOrMany(Uuid4(), "Filter by refund ID."),
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  order_id: OneOrMany(Uuid4(), "Filter by order ID."),
  subscription_id: OneOrMany(Uuid4(), "Filter by subscription ID."),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID."),
  external_customer_id: OneOrMany(Type.String({ maxLength: 256 }), "Filter by customer external ID."),
  succeeded: Type.Optional(Type.Boolean({ description: "Filter by `succeeded`." })),
  ...PaginationQuery,
  sorting: SortingQuery(RefundSortKeys, ["-created_at"], { maxItems: 10 }, { title: "RefundSortProperty" }),
});
export type RefundListQuery = Static<typeof RefundListQuery>;
