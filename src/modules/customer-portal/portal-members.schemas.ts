import { Type, type Static } from "@sinclair/typebox";
import { ListResource, PaginationQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { MemberEmail, MemberName, MemberRole } from "../customers/members.schemas.ts";

export const CustomerPortalMember = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    email: Type.String({ description: "The email address of the member." }),
    name: Nullable(Type.String(), { description: "The name of the member." }),
    role: MemberRole({ description: "The role of the member within the team." }),
  },
  { title: "CustomerPortalMember", description: "A member of the customer's team, as the portal shows it." },
);
export type CustomerPortalMember = Static<typeof CustomerPortalMember>;

export const ListResourceCustomerPortalMember = ListResource(CustomerPortalMember, { title: "ListResource[CustomerPortalMember]" });

export const CustomerPortalMemberListQuery = Type.Object({ ...PaginationQuery });
export type CustomerPortalMemberListQuery = Static<typeof CustomerPortalMemberListQuery>;

export const CustomerPortalMemberCreate = Type.Object(
  {
    email: MemberEmail({ description: "The email address of the new member." }),
    name: Type.Optional(MemberName()),
    role: Type.Optional(MemberRole({ description: "The role for the new member; `member` when omitted." })),
  },
  { title: "CustomerPortalMemberCreate" },
);
export type CustomerPortalMemberCreate = Static<typeof CustomerPortalMemberCreate>;

export const CustomerPortalMemberUpdate = Type.Object(
  {
    name: Type.Optional(MemberName()),
    role: Type.Optional(Nullable(MemberRole({ description: "The new role for the member." }))),
  },
  { title: "CustomerPortalMemberUpdate" },
);
export type CustomerPortalMemberUpdate = Static<typeof CustomerPortalMemberUpdate>;
