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

// Signing in by email code: private routes of the hosted service, absent from the reference's document.

/** `POST /v1/customer-portal/customer-session/request`: who asks for a code, and where. */
export const CustomerSessionCodeRequest = Type.Object(
  {
    email: Type.String({ format: "email", maxLength: 320, description: "The email address to send the code to." }),
    organization_id: Uuid4({ description: "The organization whose portal the code opens." }),
    customer_id: Type.Optional(
      Nullable(Uuid4(), { description: "The customer to sign in as, when several customers of the organization have the email." }),
    ),
  },
  { title: "CustomerSessionCodeRequest" },
);
export type CustomerSessionCodeRequest = Static<typeof CustomerSessionCodeRequest>;

/** `POST /v1/customer-portal/customer-session/authenticate`: the code the email carried. */
export const CustomerSessionCodeAuthenticateRequest = Type.Object(
  { code: Type.String({ maxLength: 64, description: "The 6-character code, as the email shows it (case-sensitive)." }) },
  { title: "CustomerSessionCodeAuthenticateRequest" },
);

export const CustomerSessionCodeAuthenticateResponse = Type.Object(
  {
    token: Type.String({
      description: "A customer session token (`polar_cst_`), or a member session token in member-model organizations.",
    }),
  },
  { title: "CustomerSessionCodeAuthenticateResponse" },
);

/** 409 when several customers of the organization have the email and none was named. */
export const CustomerSelectionRequiredResponse = Type.Object(
  {
    error: Type.String({ default: "customer_selection_required" }),
    detail: Type.String({ default: "Multiple customers found for this email. Please select one." }),
    customers: Type.Array(
      Type.Object(
        {
          id: Uuid4({ description: "The ID of the object." }),
          name: Nullable(Type.String(), { description: "The customer's name, if available." }),
        },
        { title: "CustomerSelectionOption" },
      ),
      { description: "List of customers to choose from." },
    ),
  },
  { title: "CustomerSelectionRequiredResponse" },
);
