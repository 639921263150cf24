import { Type, type Static } from "@sinclair/typebox";
import { OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import { DisputeStatus } from "./disputes.schemas.ts";

export const DisputeSortKeys = ["created_at", "amount"] as const;

export const DisputeListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID."),
  order_id: OneOrMany(Uuid4(), "Filter by order ID."),
  status: OneOrMany(DisputeStatus, "Filter by dispute status."),
  ...PaginationQuery,
  sorting: SortingQuery(DisputeSortKeys, ["-created_at"], { maxItems: 10 }, { title: "DisputeSortProperty" }),
});
export type DisputeListQuery = Static<typeof DisputeListQuery>;
