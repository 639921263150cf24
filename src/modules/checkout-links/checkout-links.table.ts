import type { ColumnType, Generated, Selectable } from "kysely";
import type { Metadata, RecurringInterval } from "../../schema/primitives.ts";

export interface CheckoutLinksTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  deleted_at: Date | null;
  organization_id: string;
  client_secret: string;
  label: string | null;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  discount_id: string | null;
  seats: number | null;
  trial_interval: RecurringInterval | null;
  trial_interval_count: number | null;
  success_url: string | null;
  return_url: string | null;
  metadata: ColumnType<Metadata, string | undefined, string>;
}
export type CheckoutLinkRow = Selectable<CheckoutLinksTable>;

/** The products a link offers, in display order. */
export interface CheckoutLinkProductsTable {
  organization_id: string;
  checkout_link_id: string;
  product_id: string;
  position: number;
}
