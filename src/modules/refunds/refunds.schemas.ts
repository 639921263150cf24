import { Type, type Static } from "@sinclair/typebox";
import { ListResource } from "../../schema/pagination.ts";
import { IdField, MetadataOutput, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";
import { disputeFields } from "../disputes/disputes.schemas.ts";

export const RefundStatusValues = ["pending", "succeeded", "failed", "canceled"] as const;
export const RefundStatus = StringEnum(RefundStatusValues, { title: "RefundStatus" });

/** Every reason a refund may carry; `dispute_prevention` is the system's own, never accepted on create. */
export const RefundReasonValues = [
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "dispute_prevention",
  "other",
] as const;
export const RefundReason = StringEnum(RefundReasonValues, { title: "RefundReason" });

/** A dispute a refund prevented; this service records no refund of a dispute, so a refund never carries one. */
export const RefundDispute = Type.Object({ ...disputeFields }, { title: "RefundDispute" });

export const Refund = Type.Object(
  {
    ...TimestampedFields,
    ...IdField,
    metadata: MetadataOutput(),
    status: RefundStatus,
    reason: RefundReason,
    amount: Type.Integer({ description: "The refunded amount before tax, in cents." }),
    tax_amount: Type.Integer({ description: "The tax refunded with it, in cents." }),
    currency: Type.String(),
    organization_id: Uuid4(),
    order_id: Uuid4(),
    subscription_id: Nullable(Uuid4()),
    customer_id: Uuid4(),
    revoke_benefits: Type.Boolean(),
    dispute: Nullable(RefundDispute),
  },
  { title: "Refund" },
);
export type Refund = Static<typeof Refund>;

export const ListResourceRefund = ListResource(Refund, { title: "ListResource[Refund]" });
export type ListResourceRefund = Static<typeof ListResourceRefund>;
