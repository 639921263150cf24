import { Type, type Static, type TBoolean } from "@sinclair/typebox";
import { CountryAlpha2 } from "../../schema/address.ts";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { TaxBehaviorOption } from "../../schema/extra-primitives.ts";

export const OrganizationStatusValues = [
  "created",
  "review",
  "snoozed",
  "denied",
  "active",
  "blocked",
  "offboarding",
  "offboarded",
] as const;
export const OrganizationStatus = StringEnum(OrganizationStatusValues, { title: "OrganizationStatus" });
export type OrganizationStatus = Static<typeof OrganizationStatus>;

export const SubscriptionProrationBehaviorValues = ["invoice", "prorate", "next_period", "reset"] as const;
export const SubscriptionProrationBehavior = StringEnum(SubscriptionProrationBehaviorValues, {
  title: "SubscriptionProrationBehavior",
});
export type SubscriptionProrationBehavior = Static<typeof SubscriptionProrationBehavior>;

export const OrganizationSocialPlatformsValues = [
  "x",
  "github",
  "facebook",
  "instagram",
  "youtube",
  "tiktok",
  "linkedin",
  "threads",
  "discord",
  "other",
] as const;
export const OrganizationSocialPlatforms = StringEnum(OrganizationSocialPlatformsValues, { title: "OrganizationSocialPlatforms" });

// A code list, kept dense so that it reads as a table.
// prettier-ignore
export const PresentmentCurrencyValues = [
  "aed", "all", "amd", "aoa", "ars", "aud", "awg", "azn", "bam", "bbd", "bdt", "bif", "bmd", "bnd", "bob", "brl", "bsd",
  "bwp", "bzd", "cad", "cdf", "chf", "clp", "cny", "cop", "crc", "cve", "czk", "djf", "dkk", "dop", "dzd", "egp", "etb",
  "eur", "fjd", "fkp", "gbp", "gel", "gip", "gmd", "gnf", "gtq", "gyd", "hkd", "hnl", "htg", "huf", "idr", "ils", "inr",
  "isk", "jmd", "jpy", "kes", "kgs", "khr", "kmf", "krw", "kyd", "kzt", "lak", "lkr", "lrd", "lsl", "mad", "mdl", "mga",
  "mkd", "mnt", "mop", "mur", "mvr", "mwk", "mxn", "myr", "mzn", "nad", "ngn", "nio", "nok", "npr", "nzd", "pab", "pen",
  "pgk", "php", "pkr", "pln", "pyg", "qar", "ron", "rsd", "rwf", "sar", "sbd", "scr", "sek", "sgd", "shp", "sos", "srd",
  "szl", "thb", "tjs", "top", "try", "ttd", "twd", "tzs", "uah", "ugx", "usd", "uyu", "uzs", "vnd", "vuv", "wst", "xaf",
  "xcd", "xcg", "xof", "xpf", "yer", "zar", "zmw",
] as const;
export const PresentmentCurrency = StringEnum(PresentmentCurrencyValues, { title: "PresentmentCurrency" });
export type PresentmentCurrency = Static<typeof PresentmentCurrency>;

export const HttpUrl = (options: { description?: string } = {}) =>
  Type.String({ format: "uri", minLength: 1, maxLength: 2083, ...options });

export const OrganizationSocialLink = Type.Object(
  {
    platform: OrganizationSocialPlatforms,
    url: HttpUrl({ description: "Address of the organization's profile." }),
  },
  { title: "OrganizationSocialLink" },
);

export const OrganizationCapabilities = Type.Object(
  {
    checkout_payments: Type.Boolean({ description: "Whether new checkout payments are accepted." }),
    subscription_renewals: Type.Boolean({ description: "Whether subscription renewals are processed." }),
    payouts: Type.Boolean({ description: "Whether the balance can be paid out." }),
    refunds: Type.Boolean({ description: "Whether refunds can be issued." }),
    api_access: Type.Boolean({ description: "Whether the API can be used." }),
    dashboard_access: Type.Boolean({ description: "Whether the dashboard can be used." }),
  },
  { title: "OrganizationCapabilities" },
);

const flag = (description: string) => Type.Optional(Type.Boolean({ default: false, description }));
const overviewMetrics = Type.Optional(
  Nullable(Type.Array(Type.String()), { description: "Metric slugs shown on the dashboard overview, in order." }),
);

export const OrganizationFeatureSettings = Type.Object(
  {
    issue_funding_enabled: flag("Issue funding is enabled."),
    seat_based_pricing_enabled: flag("Seat-based pricing is enabled."),
    wallets_enabled: flag("Wallets are enabled."),
    member_model_enabled: flag("The member model is enabled."),
    checkout_localization_enabled: flag("Checkout localization is enabled."),
    overview_metrics: overviewMetrics,
    reset_proration_behavior_enabled: flag("The `reset` proration behavior is available."),
    off_session_charges_enabled: flag("Draft orders can be created and finalized through the API."),
    meter_cycling_enabled: flag("Recurring products may have their own meter cycle."),
    slack_benefit_enabled: flag("The Slack shared channel benefit is available."),
    preview_access_enabled: flag("Preview features are enabled."),
    disputes_enabled: flag("The disputes dashboard is enabled."),
    sso_enabled: flag("Single sign-on can be configured."),
    dispute_auto_accept_enabled: flag("A threshold for conceding disputes automatically can be set."),
    compass_enabled: flag("The split product navigation is enabled."),
    merchant_migration_enabled: flag("Billing can be migrated from another provider."),
  },
  { title: "OrganizationFeatureSettings" },
);

export const OrganizationFeatureSettingsUpdate = Type.Object(
  {
    seat_based_pricing_enabled: flag("Seat-based pricing is enabled."),
    member_model_enabled: flag("The member model is enabled."),
    checkout_localization_enabled: flag("Checkout localization is enabled."),
    overview_metrics: overviewMetrics,
  },
  { title: "OrganizationFeatureSettingsUpdate", description: "Feature settings an organization may change itself." },
);

export const OrganizationSubscriptionSettings = Type.Object(
  {
    allow_multiple_subscriptions: Type.Boolean(),
    proration_behavior: StringEnum(["invoice", "prorate", "next_period"] as const, {
      title: "PublicSubscriptionProrationBehavior",
    }),
    benefit_revocation_grace_period: Type.Integer(),
    prevent_trial_abuse: Type.Boolean(),
    allow_customer_updates: Type.Boolean(),
  },
  { title: "OrganizationSubscriptionSettings" },
);

export const OrganizationCustomerEmailSettingsKeys = [
  "order_confirmation",
  "payment_method_expiration_reminder",
  "subscription_cancellation",
  "subscription_confirmation",
  "subscription_cycled",
  "subscription_cycled_after_trial",
  "subscription_past_due",
  "subscription_paused",
  "subscription_resumed",
  "subscription_renewal_reminder",
  "subscription_revoked",
  "subscription_trial_conversion_reminder",
  "subscription_uncanceled",
  "subscription_updated",
] as const;
export const OrganizationCustomerEmailSettings = Type.Object(
  Object.fromEntries(OrganizationCustomerEmailSettingsKeys.map((key) => [key, Type.Boolean()])) as Record<
    (typeof OrganizationCustomerEmailSettingsKeys)[number],
    TBoolean
  >,
  { title: "OrganizationCustomerEmailSettings" },
);

export const CustomerPortalUsageSettings = Type.Object({ show: Type.Boolean() }, { title: "CustomerPortalUsageSettings" });
export const CustomerPortalSubscriptionSettings = Type.Object(
  { update_seats: Type.Boolean(), update_plan: Type.Boolean(), pause: Type.Optional(Type.Boolean()) },
  { title: "CustomerPortalSubscriptionSettings" },
);
export const CustomerPortalCustomerSettings = Type.Object(
  { allow_email_change: Type.Optional(Type.Boolean()) },
  { title: "CustomerPortalCustomerSettings" },
);

export const OrganizationCustomerPortalSettings = Type.Object(
  {
    usage: CustomerPortalUsageSettings,
    subscription: CustomerPortalSubscriptionSettings,
    customer: Type.Optional(CustomerPortalCustomerSettings),
  },
  { title: "OrganizationCustomerPortalSettings" },
);

export const OrganizationDisputeSettings = Type.Object(
  { auto_accept_below_amount: Nullable(Type.Integer(), { description: "Threshold in USD cents below which disputes are conceded." }) },
  { title: "OrganizationDisputeSettings" },
);

/** A display name printable in a `From` header: no control characters (no header injection). */
const MAILBOX_NAME = "^[^\\u0000-\\u001f\\u007f]+$";
const EmailAddress = (description: string) => Type.String({ format: "email", maxLength: 254, description });

/**
 * An extension of this service: who the organization's emails come from, instead of the
 * instance's `EMAIL_FROM`. The relay of `SMTP_URL` must be allowed to send for the address.
 */
export const OrganizationEmailSender = Type.Object(
  {
    name: Nullable(Type.String({ minLength: 1, maxLength: 100, pattern: MAILBOX_NAME }), {
      description: "Display name of the sender; null: the organization's name.",
    }),
    address: EmailAddress("Address the emails come from."),
    reply_to: Nullable(EmailAddress("Reply-To address."), { description: "Where replies go; null: the organization's support email." }),
  },
  { title: "OrganizationEmailSender" },
);
export type OrganizationEmailSender = Static<typeof OrganizationEmailSender>;

/** Response of GET /v1/organizations/{id} (and of the create call). */
export const Organization = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The ID of the object." }),
    name: Type.String({ description: "Name shown in checkout, customer portal and emails." }),
    slug: Type.String({ description: "Unique slug used in checkout, customer portal and card statements." }),
    avatar_url: Nullable(Type.String(), { description: "Avatar shown in checkout, customer portal and emails." }),
    proration_behavior: SubscriptionProrationBehavior,
    allow_customer_updates: Type.Boolean({ description: "Whether customers can change subscriptions from the portal." }),
    email: Nullable(Type.String(), { description: "Public support email." }),
    website: Nullable(Type.String(), { description: "Official website." }),
    socials: Type.Array(OrganizationSocialLink, { description: "Social profile links." }),
    status: OrganizationStatus,
    details_submitted_at: Nullable(DateTime(), { description: "When business details were submitted for review." }),
    onboarding_resubmission_requested_at: Nullable(DateTime(), {
      description: "When the organization was asked to resubmit its onboarding information.",
    }),
    sso_enforced: Type.Boolean({ description: "Whether members must sign in through SSO." }),
    default_presentment_currency: Type.String({ description: "Fallback currency for checkout and customer portal." }),
    default_tax_behavior: TaxBehaviorOption({ description: "Tax behavior applied to products by default." }),
    feature_settings: Nullable(OrganizationFeatureSettings),
    subscription_settings: OrganizationSubscriptionSettings,
    customer_email_settings: OrganizationCustomerEmailSettings,
    customer_portal_settings: OrganizationCustomerPortalSettings,
    dispute_settings: OrganizationDisputeSettings,
    embed_hosts: Type.Array(Type.String(), { description: "Hosts (with optional port) allowed to embed the checkout." }),
    embed_hosts_enforced: Type.Boolean({ description: "Whether embedding origins must match `embed_hosts`." }),
    country: Type.Optional(Nullable(CountryAlpha2, { description: "ISO 3166-1 alpha-2 country code." })),
    account_id: Nullable(Uuid4(), { description: "ID of the transactions account." }),
    payout_account_id: Nullable(Uuid4(), { description: "ID of the payout account." }),
    capabilities: OrganizationCapabilities,
  },
  { title: "Organization" },
);
export type Organization = Static<typeof Organization>;

/**
 * The organization's switches for the notices its `email` receives, one per notice: the reference's
 * `OrganizationNotificationSettings` (which it lists only for members) and, for the notices it has
 * no switch for, three extensions of this service (docs/decisions.md, "Every seller notice has its switch").
 */
export const OrganizationNotificationSettings = Type.Object(
  {
    new_order: Type.Boolean({ description: "Tell the seller of each one-time sale." }),
    new_subscription: Type.Boolean({ description: "Tell the seller of each new subscriber." }),
    chargeback_prevention: Type.Boolean({
      description: "The hosted service's notice of a chargeback prevented by a refund; none is sent here (a dispute has its own switch).",
    }),
    subscription_renewal: Type.Boolean({ description: "Tell the seller of each paid renewal (no such notice is sent yet)." }),
    subscription_cancellation: Type.Boolean({
      description: "An extension of this service: tell the seller of each cancellation a customer makes.",
    }),
    dispute_opened: Type.Boolean({ description: "An extension of this service: tell the seller of each dispute opened on a payment." }),
    webhook_endpoint_disabled: Type.Boolean({
      description: "An extension of this service: tell the seller when a webhook endpoint that kept failing is disabled.",
    }),
  },
  { title: "OrganizationNotificationSettings" },
);
export type OrganizationNotificationSettings = Static<typeof OrganizationNotificationSettings>;

/**
 * What the organization routes answer: the reference's Organization (kept exact above, and checked
 * against it) plus two extensions that the official clients pass over (the current one reads the
 * JSON as it is, the 0.x one decodes with zod objects, which drop unknown keys): `email_sender`,
 * and `notification_settings`, which the hosted service also answers, hidden, for its 0.x clients
 * that require it.
 */
export const OrganizationResponse = Type.Object(
  {
    ...Organization.properties,
    email_sender: Nullable(OrganizationEmailSender, {
      description: "An extension of this service: the sender of the organization's emails; null: the instance's.",
    }),
    notification_settings: OrganizationNotificationSettings,
  },
  { title: "Organization" },
);
export type OrganizationResponse = Static<typeof OrganizationResponse>;
