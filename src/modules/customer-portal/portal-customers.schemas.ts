import { Type, type Static } from "@sinclair/typebox";
import { Address, AddressInput } from "../../schema/address.ts";
import { DateTime, Nullable, Uuid4 } from "../../schema/primitives.ts";
import { TaxIdFormat } from "../../adapters/tax-engine/tax-id.ts";
import { CustomerType } from "../customers/customers.schemas.ts";

export const CustomerPortalOAuthAccount = Type.Object(
  { account_id: Type.String(), account_username: Nullable(Type.String()) },
  { title: "CustomerPortalOAuthAccount" },
);

export const CustomerPortalCustomer = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    email: Nullable(Type.String()),
    email_verified: Type.Boolean(),
    name: Nullable(Type.String()),
    billing_name: Nullable(Type.String()),
    billing_address: Nullable(Address),
    tax_id: Nullable(Type.Tuple([Type.String(), TaxIdFormat])),
    oauth_accounts: Type.Record(Type.String(), CustomerPortalOAuthAccount),
    default_payment_method_id: Type.Optional(Nullable(Uuid4())),
    type: Type.Optional(Nullable(CustomerType)),
    locale: Type.Optional(Nullable(Type.String())),
  },
  { title: "CustomerPortalCustomer" },
);
export type CustomerPortalCustomer = Static<typeof CustomerPortalCustomer>;

// Bounds the reference leaves open, as on the organization-side customer update.
export const CustomerPortalCustomerUpdate = Type.Object(
  {
    billing_name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    billing_address: Type.Optional(Nullable(AddressInput)),
    tax_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    default_payment_method_id: Type.Optional(Nullable(Uuid4())),
  },
  { title: "CustomerPortalCustomerUpdate" },
);
export type CustomerPortalCustomerUpdate = Static<typeof CustomerPortalCustomerUpdate>;
