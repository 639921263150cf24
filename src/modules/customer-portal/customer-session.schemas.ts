import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable } from "../../kit/schema.ts";

/** What `GET /v1/customer-portal/customer-session/introspect` tells about the calling session. */
export const CustomerCustomerSession = Type.Object(
  { expires_at: DateTime(), return_url: Nullable(Type.String()) },
  { title: "CustomerCustomerSession" },
);
export type CustomerCustomerSession = Static<typeof CustomerCustomerSession>;
