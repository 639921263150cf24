import type { Updateable } from "kysely";
import { valueError } from "../../http/errors.ts";
import type { OrganizationUpdateBody } from "./organization-inputs.schemas.ts";
import { DisputeAutoAcceptNotEnabled, SSOEnforcementRequiresConnection } from "./organizations.errors.ts";
import { toOrganization } from "./organizations.mapper.ts";
import { OrganizationCustomerEmailSettingsKeys } from "./organizations.schemas.ts";
import type { OrganizationRow, OrganizationsTable } from "./organizations.table.ts";

type FeatureSettingsUpdate = NonNullable<OrganizationUpdateBody["feature_settings"]>;

/** The feature flags an organization may change itself; any other key sent is left alone. */
const UPDATABLE_FEATURES = [
  "seat_based_pricing_enabled",
  "member_model_enabled",
  "checkout_localization_enabled",
  "overview_metrics",
] as const;

/**
 * The feature settings after the update, merged onto the stored ones. The rules read the flags as
 * the organization is answered (defaults applied): seat-based pricing never goes off once on, and
 * goes on only with the member model.
 */
function mergedFeatureSettings(current: OrganizationRow, update: FeatureSettingsUpdate): Record<string, unknown> {
  const before = toOrganization(current).feature_settings;
  const sent = Object.fromEntries(UPDATABLE_FEATURES.filter((key) => update[key] !== undefined).map((key) => [key, update[key]]));
  const after = { ...before, ...sent };
  const loc = ["body", "feature_settings", "seat_based_pricing_enabled"];
  if (before?.seat_based_pricing_enabled && after.seat_based_pricing_enabled === false) {
    throw valueError(loc, "Seat-based pricing cannot be disabled once enabled.", false);
  }
  if (!before?.seat_based_pricing_enabled && after.seat_based_pricing_enabled && !after.member_model_enabled) {
    throw valueError(loc, "Member model must be enabled before enabling seat-based pricing.", true);
  }
  return { ...current.feature_settings, ...sent };
}

/**
 * The columns a PATCH writes: only the keys sent apply. Null clears what the answer shows as
 * nullable (avatar, email, website, country, the sender) and leaves the rest unchanged.
 * `details` (private business details for a review this service does not run) is accepted and
 * not kept, as on create.
 */
export function organizationChanges(current: OrganizationRow, input: OrganizationUpdateBody): Updateable<OrganizationsTable> {
  const changes: Updateable<OrganizationsTable> = {};
  if (input.feature_settings) changes.feature_settings = JSON.stringify(mergedFeatureSettings(current, input.feature_settings));
  if (input.dispute_settings?.auto_accept_below_amount != null) throw new DisputeAutoAcceptNotEnabled();
  if (input.sso_enforced === true) throw new SSOEnforcementRequiresConnection();

  if (input.name != null) changes.name = input.name;
  if (input.avatar_url !== undefined) changes.avatar_url = input.avatar_url;
  if (input.email !== undefined) changes.email = input.email;
  if (input.website !== undefined) changes.website = input.website;
  if (input.country !== undefined) changes.country = input.country;
  if (input.socials != null) changes.socials = JSON.stringify(input.socials);
  if (input.subscription_settings != null) changes.subscription_settings = JSON.stringify(input.subscription_settings);
  if (input.customer_portal_settings != null) changes.customer_portal_settings = JSON.stringify(input.customer_portal_settings);
  // Per switch: a client that knows one switch cannot turn the others back on by omission.
  if (input.customer_email_settings != null) {
    // Keys the schema does not name pass validation (the reference allows them) but are not kept.
    const known = OrganizationCustomerEmailSettingsKeys.filter((key) => input.customer_email_settings?.[key] !== undefined);
    const sent = Object.fromEntries(known.map((key) => [key, input.customer_email_settings?.[key]]));
    changes.customer_email_settings = JSON.stringify({ ...current.customer_email_settings, ...sent });
  }
  if (input.notification_settings != null) {
    changes.notification_settings = JSON.stringify({ ...current.notification_settings, ...input.notification_settings });
  }
  if (input.embed_hosts != null) changes.embed_hosts = [...new Set(input.embed_hosts)];
  if (input.default_presentment_currency != null) changes.default_presentment_currency = input.default_presentment_currency;
  if (input.default_tax_behavior != null) changes.default_tax_behavior = input.default_tax_behavior;
  if (input.email_sender !== undefined) {
    changes.email_sender_address = input.email_sender?.address ?? null;
    changes.email_sender_name = input.email_sender?.name ?? null;
    changes.email_reply_to = input.email_sender?.reply_to ?? null;
  }
  return changes;
}
