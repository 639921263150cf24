import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { Customer, EXTERNAL_ID_MAX } from "./customers.schemas.ts";

const ReturnUrl = Type.Optional(
  Nullable(Type.String({ format: "uri", minLength: 1, maxLength: 2083 }), {
    description: "Where the portal sends the customer back to.",
  }),
);
// With the organization's member model on, these name the member a session is for; otherwise they are ignored.
const memberFields = {
  member_id: Type.Optional(Nullable(Uuid4({ description: "ID of the member to open a session for." }))),
  external_member_id: Type.Optional(
    Nullable(Type.String({ maxLength: EXTERNAL_ID_MAX, description: "External ID of the member; `member_id` wins when both are given." })),
  ),
};

export const CustomerSessionCustomerIDCreate = Type.Object(
  { ...memberFields, return_url: ReturnUrl, customer_id: Uuid4({ description: "ID of the customer to open a session for." }) },
  { title: "CustomerSessionCustomerIDCreate" },
);
export const CustomerSessionCustomerExternalIDCreate = Type.Object(
  {
    ...memberFields,
    return_url: ReturnUrl,
    external_customer_id: Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, description: "External ID of the customer." }),
  },
  { title: "CustomerSessionCustomerExternalIDCreate" },
);
export const CustomerSessionCreate = Type.Union([CustomerSessionCustomerIDCreate, CustomerSessionCustomerExternalIDCreate], {
  title: "Customer Session Create",
});
export type CustomerSessionCreate = Static<typeof CustomerSessionCreate>;

export const CustomerSession = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    token: Type.String({ description: "Bearer token of the session; shown only in this response." }),
    expires_at: DateTime(),
    return_url: Nullable(Type.String()),
    customer_portal_url: Type.String({ description: "Link that opens the customer portal with this session." }),
    customer_id: Uuid4(),
    customer: Customer,
  },
  { title: "CustomerSession", description: "A customer session, for the customer portal." },
);
export type CustomerSession = Static<typeof CustomerSession>;
