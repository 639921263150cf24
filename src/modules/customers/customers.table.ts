import type { ColumnType, Generated, Selectable } from "kysely";
import type { StoredAddress } from "../../schema/address.ts";
import type { Metadata } from "../../schema/primitives.ts";

export interface CustomersTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  short_id: Generated<number>;
  type: Generated<"individual" | "team">;
  external_id: string | null;
  email: string;
  email_verified: Generated<boolean>;
  name: string | null;
  billing_name: string | null;
  billing_address: ColumnType<StoredAddress | null, string | null | undefined, string | null>;
  /** `[normalized number, format]`, as the reference returns it. */
  tax_id: ColumnType<[string, string] | null, string | null | undefined, string | null>;
  locale: string | null;
  default_payment_method_id: string | null;
  /** The processor's customer of this buyer (Stripe's `cus_…`), once they paid through it. */
  processor_customer_reference: Generated<string | null>;
  metadata: ColumnType<Metadata, string | undefined, string>;
  deleted_at: Date | null;
}
export type CustomerRow = Selectable<CustomersTable>;
