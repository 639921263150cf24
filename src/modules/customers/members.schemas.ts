import { Type, type Static } from "@sinclair/typebox";
import { ListResource, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { EMAIL_MAX, EXTERNAL_ID_MAX } from "./customers.schemas.ts";

export const MemberRoleValues = ["owner", "billing_manager", "member"] as const;
export const MemberRole = (options: { description?: string } = {}) => StringEnum(MemberRoleValues, { title: "MemberRole", ...options });

const NAME_MAX = 256;

export const Member = Type.Object(
  {
    id: Uuid4({ description: "The ID of the member." }),
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    customer_id: Uuid4({ description: "The ID of the customer this member belongs to." }),
    email: Type.String({ description: "The email address of the member." }),
    name: Nullable(Type.String(), { description: "The name of the member." }),
    external_id: Nullable(Type.String(), { description: "The member's ID in your system; unique within the customer." }),
    role: MemberRole({ description: "The member's role within the customer." }),
  },
  { title: "Member", description: "A member of a customer." },
);
export type Member = Static<typeof Member>;

export const MemberEmail = (options: { description?: string } = {}) => Type.String({ format: "email", maxLength: EMAIL_MAX, ...options });
export const MemberName = () => Nullable(Type.String({ maxLength: NAME_MAX, description: "The name of the member." }));
const MemberExternalId = () =>
  Nullable(Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, description: "The member's ID in your system." }));

export const MemberCreateFromCustomer = Type.Object(
  {
    email: MemberEmail({ description: "The email address of the member." }),
    name: Type.Optional(MemberName()),
    external_id: Type.Optional(MemberExternalId()),
    role: Type.Optional(
      StringEnum(["member", "billing_manager"] as const, {
        default: "member",
        description: "The member's role; ownership is given through the member update.",
      }),
    ),
  },
  { title: "MemberCreateFromCustomer" },
);
export type MemberCreateFromCustomer = Static<typeof MemberCreateFromCustomer>;

export const MemberUpdate = Type.Object(
  {
    name: Type.Optional(MemberName()),
    email: Type.Optional(Nullable(MemberEmail())),
    role: Type.Optional(Nullable(MemberRole())),
  },
  { title: "MemberUpdate" },
);
export type MemberUpdate = Static<typeof MemberUpdate>;

export const MemberSortKeys = ["created_at"] as const;
export const MemberListQuery = Type.Object({
  customer_id: Type.Optional(Nullable(Uuid4({ description: "Filter by customer ID." }))),
  external_customer_id: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, description: "Filter by customer external ID." })),
  ),
  role: Type.Optional(Nullable(MemberRole({ description: "Filter by member role." }))),
  ...PaginationQuery,
  sorting: SortingQuery(MemberSortKeys, ["-created_at"], { maxItems: 10 }, { title: "MemberSortProperty" }),
});
export type MemberListQuery = Static<typeof MemberListQuery>;

export const ListResourceMember = ListResource(Member, { title: "ListResource[Member]" });

export const CustomerMemberParams = Type.Object({
  id: Uuid4({ description: "The customer ID." }),
  member_id: Uuid4({ description: "The member ID." }),
});
export const ExternalCustomerMemberParams = Type.Object({
  external_id: Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, description: "The customer external ID." }),
  member_external_id: Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, description: "The member external ID." }),
});
