import { randomUUID } from "node:crypto";
import type { Executor } from "../../db/database.ts";
import type { JsonValue } from "../../db/json.ts";
import { addInterval } from "../../kit/calendar.ts";
import type { BenefitJson } from "../products/products.mapper.ts";
import { displayKey } from "../license-keys/license-keys.mapper.ts";

interface LicenseKeyProperties {
  prefix?: string | null;
  expires?: { ttl: number; timeframe: "day" | "month" | "year" } | null;
  activations?: { limit: number } | null;
  limit_usage?: number | null;
}

/** An uppercase UUID4, behind the benefit's prefix when it has one. */
export function licenseKeyValue(prefix: string | null | undefined): string {
  const key = randomUUID().toUpperCase();
  const cleaned = prefix?.trim().toUpperCase();
  return cleaned ? `${cleaned}-${key}` : key;
}

/** Issues the key a `license_keys` benefit promises; returns what the grant records about it. */
async function issueLicenseKey(db: Executor, benefit: BenefitJson, customerId: string, now: Date): Promise<Record<string, JsonValue>> {
  const properties = benefit.properties as LicenseKeyProperties;
  const expires = properties.expires;
  const row = await db
    .insertInto("license_keys")
    .values({
      created_at: now,
      modified_at: null,
      deleted_at: null,
      organization_id: benefit.organization_id,
      customer_id: customerId,
      benefit_id: benefit.id,
      key: licenseKeyValue(properties.prefix),
      limit_activations: properties.activations?.limit ?? null,
      limit_usage: properties.limit_usage ?? null,
      last_validated_at: null,
      expires_at: expires ? addInterval(now, expires.timeframe, expires.ttl) : null,
    })
    .returning(["id", "key"])
    .executeTakeFirstOrThrow();
  return { license_key_id: row.id, display_key: displayKey(row.key) };
}

/**
 * Grants every benefit of a purchased product to the buyer, in the order's transaction. The
 * (order, benefit) unique index makes a replay a no-op instead of a second key.
 */
export async function grantBenefits(
  db: Executor,
  input: { customerId: string; orderId: string; benefits: readonly BenefitJson[]; now: Date },
): Promise<number> {
  let granted = 0;
  for (const benefit of input.benefits) {
    const existing = await db.selectFrom("benefit_grants").select("id").where("order_id", "=", input.orderId).where("benefit_id", "=", benefit.id).executeTakeFirst();
    if (existing) continue;
    const properties = benefit.type === "license_keys" ? await issueLicenseKey(db, benefit, input.customerId, input.now) : {};
    await db
      .insertInto("benefit_grants")
      .values({
        created_at: input.now,
        modified_at: null,
        organization_id: benefit.organization_id,
        customer_id: input.customerId,
        benefit_id: benefit.id,
        order_id: input.orderId,
        granted_at: input.now,
        revoked_at: null,
        properties: JSON.stringify(properties),
      })
      .execute();
    granted += 1;
  }
  return granted;
}
