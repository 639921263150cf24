import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { CheckoutOrganization, CustomerOrganization } from "./organization-views.schemas.ts";
import type {
  Organization,
  OrganizationEmailSender,
  OrganizationNotificationSettings,
  OrganizationResponse,
} from "./organizations.schemas.ts";
import type { OrganizationRow } from "./organizations.table.ts";

/** Settings a new organization starts with: self-hosted instances have every capability on. */
const DEFAULT_FEATURE_SETTINGS = {
  issue_funding_enabled: false,
  seat_based_pricing_enabled: true,
  wallets_enabled: false,
  member_model_enabled: false,
  checkout_localization_enabled: false,
  reset_proration_behavior_enabled: false,
  off_session_charges_enabled: false,
  meter_cycling_enabled: false,
  slack_benefit_enabled: false,
  preview_access_enabled: false,
  disputes_enabled: false,
  sso_enabled: false,
  dispute_auto_accept_enabled: false,
  compass_enabled: false,
  merchant_migration_enabled: false,
};
const DEFAULT_SUBSCRIPTION_SETTINGS = {
  allow_multiple_subscriptions: false,
  proration_behavior: "prorate",
  benefit_revocation_grace_period: 0,
  prevent_trial_abuse: false,
  allow_customer_updates: true,
};
const DEFAULT_CUSTOMER_EMAIL_SETTINGS = {
  order_confirmation: true,
  subscription_cancellation: true,
  subscription_confirmation: true,
  subscription_cycled: true,
  subscription_cycled_after_trial: true,
  subscription_past_due: true,
  subscription_paused: true,
  subscription_resumed: true,
  subscription_renewal_reminder: true,
  subscription_revoked: true,
  subscription_trial_conversion_reminder: true,
  subscription_uncanceled: true,
  subscription_updated: true,
};
/**
 * The switches as they apply: a switch never stored is on, except the card expiry reminder,
 * which follows the renewal receipt's (as the hosted service reads settings stored before it existed).
 */
export function customerEmailSettingsOf(stored: OrganizationRow["customer_email_settings"]): Organization["customer_email_settings"] {
  const settings = { ...DEFAULT_CUSTOMER_EMAIL_SETTINGS, ...stored } as Omit<
    Organization["customer_email_settings"],
    "payment_method_expiration_reminder"
  > &
    Partial<Organization["customer_email_settings"]>;
  return { ...settings, payment_method_expiration_reminder: settings.payment_method_expiration_reminder ?? settings.subscription_cycled };
}

/** The organization's own sender of its emails (an extension), or null for the instance's. */
export const emailSenderOf = (
  row: Pick<OrganizationRow, "email_sender_name" | "email_sender_address" | "email_reply_to">,
): OrganizationEmailSender | null =>
  row.email_sender_address === null
    ? null
    : { name: row.email_sender_name, address: row.email_sender_address, reply_to: row.email_reply_to };

/**
 * The hosted service's defaults for its members' switches (anchor-behaviour-wave3 §2.4: renewals are
 * not told); the extensions' notices are told unless switched off.
 */
const DEFAULT_NOTIFICATION_SETTINGS: OrganizationNotificationSettings = {
  new_order: true,
  new_subscription: true,
  chargeback_prevention: true,
  subscription_renewal: false,
  subscription_cancellation: true,
  dispute_opened: true,
  webhook_endpoint_disabled: true,
};

/** The seller's switches as they apply: a switch never stored has its default. */
export const notificationSettingsOf = (stored: OrganizationRow["notification_settings"]): OrganizationNotificationSettings => ({
  ...DEFAULT_NOTIFICATION_SETTINGS,
  ...(stored as Partial<OrganizationNotificationSettings>),
});

const DEFAULT_CUSTOMER_PORTAL_SETTINGS = {
  usage: { show: true },
  subscription: { update_seats: true, update_plan: true, pause: false },
  customer: { allow_email_change: true },
};

export function toOrganization(row: OrganizationRow): OrganizationResponse {
  const subscription = { ...DEFAULT_SUBSCRIPTION_SETTINGS, ...row.subscription_settings } as Organization["subscription_settings"];
  return {
    id: row.id,
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    name: row.name,
    slug: row.slug,
    avatar_url: row.avatar_url,
    proration_behavior: subscription.proration_behavior,
    allow_customer_updates: subscription.allow_customer_updates,
    email: row.email,
    website: row.website,
    socials: row.socials as Organization["socials"],
    status: row.status,
    details_submitted_at: null,
    onboarding_resubmission_requested_at: null,
    sso_enforced: false,
    default_presentment_currency: row.default_presentment_currency,
    default_tax_behavior: row.default_tax_behavior as Organization["default_tax_behavior"],
    feature_settings: { ...DEFAULT_FEATURE_SETTINGS, ...row.feature_settings },
    subscription_settings: subscription,
    customer_email_settings: customerEmailSettingsOf(row.customer_email_settings),
    customer_portal_settings: { ...DEFAULT_CUSTOMER_PORTAL_SETTINGS, ...row.customer_portal_settings },
    dispute_settings: { auto_accept_below_amount: null },
    embed_hosts: row.embed_hosts,
    embed_hosts_enforced: false,
    country: (row.country ?? null) as Organization["country"],
    account_id: null,
    payout_account_id: null,
    capabilities: {
      checkout_payments: true,
      subscription_renewals: true,
      payouts: true,
      refunds: true,
      api_access: true,
      dashboard_access: true,
    },
    email_sender: emailSenderOf(row),
    notification_settings: notificationSettingsOf(row.notification_settings),
  };
}

/**
 * The seller as a buyer sees it on a checkout: a subset of the full view, so the defaults of
 * unset settings are applied in one place for every view.
 */
export const toCheckoutOrganization = (row: OrganizationRow): CheckoutOrganization => checkoutView(toOrganization(row));

function checkoutView(organization: Organization): CheckoutOrganization {
  return {
    created_at: organization.created_at,
    modified_at: organization.modified_at,
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    avatar_url: organization.avatar_url,
    proration_behavior: organization.proration_behavior,
    allow_customer_updates: organization.allow_customer_updates,
  };
}

/** The seller as a portal customer sees it: the checkout's view plus the portal settings and flags. */
export function toCustomerOrganization(row: OrganizationRow): CustomerOrganization {
  const organization = toOrganization(row);
  return {
    ...checkoutView(organization),
    customer_portal_settings: organization.customer_portal_settings,
    organization_features: {
      member_model_enabled: organization.feature_settings?.member_model_enabled ?? false,
      checkout_localization_enabled: organization.feature_settings?.checkout_localization_enabled ?? false,
    },
  };
}
