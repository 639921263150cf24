import type { Deps } from "../../context.ts";
import { ResourceNotFound, RequestValidationError } from "../../kit/errors.ts";
import type { OrganizationScope } from "../../kit/auth.ts";
import { toIso, toIsoOrNull } from "../../kit/schema.ts";
import * as repo from "./organizations.repository.ts";
import type { OrganizationRow } from "./organizations.table.ts";
import type { Organization, OrganizationCreateBody } from "./organizations.schemas.ts";

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
  payment_method_expiration_reminder: true,
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
const DEFAULT_CUSTOMER_PORTAL_SETTINGS = {
  usage: { show: true },
  subscription: { update_seats: true, update_plan: true, pause: false },
  customer: { allow_email_change: true },
};

export function toOrganization(row: OrganizationRow): Organization {
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
    status: "active",
    details_submitted_at: null,
    onboarding_resubmission_requested_at: null,
    sso_enforced: false,
    default_presentment_currency: row.default_presentment_currency as Organization["default_presentment_currency"],
    default_tax_behavior: row.default_tax_behavior as Organization["default_tax_behavior"],
    feature_settings: { ...DEFAULT_FEATURE_SETTINGS, ...row.feature_settings } as Organization["feature_settings"],
    subscription_settings: subscription,
    customer_email_settings: { ...DEFAULT_CUSTOMER_EMAIL_SETTINGS, ...row.customer_email_settings } as Organization["customer_email_settings"],
    customer_portal_settings: { ...DEFAULT_CUSTOMER_PORTAL_SETTINGS, ...row.customer_portal_settings } as Organization["customer_portal_settings"],
    dispute_settings: { auto_accept_below_amount: null },
    embed_hosts: [],
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
  };
}

export function createOrganizationService(deps: Deps) {
  return {
    async create(input: OrganizationCreateBody): Promise<Organization> {
      const row = await repo.insertOrganization(deps.db, {
        name: input.name,
        slug: input.slug,
        avatar_url: input.avatar_url ?? null,
        email: input.email ?? null,
        website: input.website ?? null,
        socials: JSON.stringify(input.socials ?? []),
        country: input.country ?? null,
        default_presentment_currency: input.default_presentment_currency ?? "usd",
        default_tax_behavior: input.default_tax_behavior ?? "location",
        feature_settings: JSON.stringify(input.feature_settings ?? {}),
        subscription_settings: JSON.stringify(input.subscription_settings ?? {}),
        customer_email_settings: JSON.stringify(input.customer_email_settings ?? {}),
        customer_portal_settings: JSON.stringify(input.customer_portal_settings ?? {}),
        invoice_numbering: input.order_settings?.invoice_numbering ?? "customer",
        invoice_prefix: null,
      });
      if (!row) {
        throw new RequestValidationError([
          { loc: ["body", "slug"], msg: "An organization with this slug already exists.", type: "value_error", input: input.slug },
        ]);
      }
      return toOrganization(row);
    },

    async get(id: string, allowed: OrganizationScope): Promise<Organization> {
      const row = await repo.findOrganization(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      return toOrganization(row);
    },
  };
}
export type OrganizationService = ReturnType<typeof createOrganizationService>;
