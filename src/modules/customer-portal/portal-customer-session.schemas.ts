import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { MemberRole } from "../customers/members.schemas.ts";

/** What `GET /v1/customer-portal/customer-session/introspect` tells about the calling session. */
export const CustomerCustomerSession = Type.Object(
  { expires_at: DateTime(), return_url: Nullable(Type.String()) },
  { title: "CustomerCustomerSession" },
);
export type CustomerCustomerSession = Static<typeof CustomerCustomerSession>;

/** Who the calling portal session acts as: the customer, or one of its members with the role. */
export const PortalAuthenticatedUser = Type.Object(
  {
    type: StringEnum(["customer", "member"] as const, { description: "`customer` or `member`, by the session's kind." }),
    name: Nullable(Type.String(), { description: "The customer's or member's name." }),
    email: Type.String({ description: "The customer's or member's email address." }),
    customer_id: Uuid4({ description: "The session's customer." }),
    // Optional in the reference's required list, though always emitted here (null for a customer session).
    member_id: Type.Optional(Nullable(Uuid4(), { description: "The member, for a member session." })),
    role: Type.Optional(Nullable(MemberRole(), { description: "The member's role, for a member session." })),
  },
  { title: "PortalAuthenticatedUser" },
);
export type PortalAuthenticatedUser = Static<typeof PortalAuthenticatedUser>;
