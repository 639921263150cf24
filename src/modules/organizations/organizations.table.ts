import type { ColumnType, Generated, Selectable } from "kysely";
import type { JsonValue } from "../../db/json.ts";
import type { CountryCode, StoredAddress } from "../../schema/address.ts";
import type { OrganizationStatus } from "./organizations.schemas.ts";

/** Where the organization is registered to collect tax, with the number it was given. */
export interface TaxRegistration {
  country: CountryCode;
  /** The state or province, for a registration of one (ISO 3166-2, `CA-QC`); null for a country-wide one. */
  state: string | null;
  /** `eu_oss`: the One-Stop Shop registration held in `country`, collecting the VAT of every EU member state. */
  scheme: "standard" | "eu_oss";
  /** Null for a registration recorded without its number (the ones given to organizations that existed before registrations counted). */
  number: string | null;
}

export interface OrganizationsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  name: string;
  slug: string;
  avatar_url: string | null;
  email: string | null;
  website: string | null;
  socials: ColumnType<JsonValue, string | undefined, string>;
  country: string | null;
  default_presentment_currency: Generated<string>;
  default_tax_behavior: Generated<string>;
  feature_settings: ColumnType<Record<string, JsonValue>, string | undefined, string>;
  subscription_settings: ColumnType<Record<string, JsonValue>, string | undefined, string>;
  customer_email_settings: ColumnType<Record<string, JsonValue>, string | undefined, string>;
  customer_portal_settings: ColumnType<Record<string, JsonValue>, string | undefined, string>;
  /** The seller's switches for its own notices (an extension), as PATCH stored them; a missing one is its default. */
  notification_settings: ColumnType<Record<string, JsonValue>, string | undefined, string>;
  invoice_numbering: Generated<"customer" | "organization">;
  invoice_prefix: string | null;
  /** The registered name printed on its documents (`legal_entity.registered_name`); null: `name`. */
  legal_name: string | null;
  legal_address: ColumnType<StoredAddress | null, string | null | undefined, string | null>;
  tax_registrations: ColumnType<TaxRegistration[], string | undefined, string>;
  /** The review status (the hosted service's), set by the operator; `active` until then. */
  status: Generated<OrganizationStatus>;
  /** How far the organization's test clock is ahead of real time (sandbox only; 0 otherwise). */
  clock_offset_ms: Generated<number>;
  /** Hosts allowed to embed the checkout, as PATCH set them (not enforced: `embed_hosts_enforced` is false). */
  embed_hosts: ColumnType<string[], string[] | undefined, string[]>;
  /** The sender override of its emails (an extension): the address; null for the instance's `EMAIL_FROM`. */
  email_sender_address: string | null;
  /** The override's display name; null: the organization's name. Only with an address. */
  email_sender_name: string | null;
  /** The override's Reply-To; null: the organization's support email. Only with an address. */
  email_reply_to: string | null;
}
export type OrganizationRow = Selectable<OrganizationsTable>;

export interface PersonalAccessTokensTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  token_hash: string;
  comment: string;
  revoked_at: Date | null;
}

export interface OrganizationAccessTokensTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  comment: string;
  token_hash: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}
export type OrganizationAccessTokenRow = Selectable<OrganizationAccessTokensTable>;
