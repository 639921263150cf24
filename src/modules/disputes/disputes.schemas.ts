import { Type, type Static } from "@sinclair/typebox";
import { ListResource } from "../../schema/pagination.ts";
import { DateTime, IdField, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";
import { OrderCustomer } from "../orders/orders.schemas.ts";

export const DisputeStatusValues = ["prevented", "early_warning", "needs_response", "under_review", "lost", "won"] as const;
export const DisputeStatus = StringEnum(DisputeStatusValues, { title: "DisputeStatus" });

/** The customer embedded in a dispute: the same fields as an order's. */
export const DisputeCustomer = Type.Object({ ...OrderCustomer.properties }, { title: "DisputeCustomer" });

/** A dispute's own fields, shared with the one a refund carries (`RefundDispute`). */
export const disputeFields = {
  ...TimestampedFields,
  ...IdField,
  status: DisputeStatus,
  resolved: Type.Boolean({ description: "Whether the dispute has been resolved (won or lost)." }),
  closed: Type.Boolean({ description: "Whether the dispute is closed (prevented, won, or lost)." }),
  amount: Type.Integer({ description: "Amount in cents disputed." }),
  tax_amount: Type.Integer({ description: "Tax amount in cents disputed." }),
  currency: Type.String({ description: "Currency code of the dispute." }),
  reason: Nullable(Type.String(), { description: "The reason for the dispute as reported by the card network." }),
  evidence_due_by: Nullable(DateTime(), { description: "Deadline to submit evidence in response to the dispute." }),
  past_due: Type.Boolean({ description: "Whether the evidence submission deadline has passed." }),
  order_id: Uuid4(),
  payment_id: Uuid4(),
};

export const Dispute = Type.Object(
  {
    ...disputeFields,
    customer: DisputeCustomer,
    case_id: Nullable(Uuid4(), { description: "The ID of the support case for this dispute, if one was opened." }),
  },
  { title: "Dispute" },
);
export type Dispute = Static<typeof Dispute>;

export const ListResourceDispute = ListResource(Dispute, { title: "ListResource[Dispute]" });
export type ListResourceDispute = Static<typeof ListResourceDispute>;
