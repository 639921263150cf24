import type { ColumnType, Generated, Selectable } from "kysely";
import type { JsonValue } from "../../db/json.ts";
import type { Metadata } from "../../schema/primitives.ts";

type Json<T> = ColumnType<T, string | undefined, string>;

export interface BenefitsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  type: string;
  description: string;
  selectable: Generated<boolean>;
  deletable: Generated<boolean>;
  is_deleted: Generated<boolean>;
  visibility: Generated<"draft" | "private" | "public">;
  properties: Json<Record<string, JsonValue>>;
  metadata: Json<Metadata>;
}
export type BenefitRow = Selectable<BenefitsTable>;

export interface BenefitGrantsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  organization_id: string;
  customer_id: string;
  benefit_id: string;
  order_id: string | null;
  /** The subscription whose life the grant follows; null for a one-time purchase. */
  subscription_id: string | null;
  /** The member a seat's grant is for; null for a purchase's own grants. */
  member_id: Generated<string | null>;
  /** The seat whose claim made the grant: its life follows the seat's, not the purchase's. */
  seat_id: Generated<string | null>;
  granted_at: Date | null;
  revoked_at: Date | null;
  /** What the grant produced, e.g. `{license_key_id, display_key}`. */
  properties: Json<Record<string, JsonValue>>;
}
export type BenefitGrantRow = Selectable<BenefitGrantsTable>;
