import type { Migration } from "kysely";
import * as foundation from "./2026-11-22T0001_foundation.ts";
import * as webhookEvents from "./2026-11-22T0002_webhook_events.ts";
import * as events from "./2026-11-22T0010_events.ts";
import * as webhooks from "./2026-11-22T0020_webhooks.ts";
import * as customerSessionsAndCatalogColumns from "./2026-11-22T0030_customer_sessions_and_catalog_columns.ts";
import * as ordersGrantsAndLicenseKeys from "./2026-11-22T0040_orders_grants_and_license_keys.ts";
import * as orderDocuments from "./2026-11-22T0050_order_documents.ts";
import * as orderListIndexes from "./2026-11-22T0051_order_list_indexes.ts";
import * as workerLeases from "./2026-11-22T0065_worker_leases.ts";
import * as taxIdFormatsOfTheReference from "./2026-11-24T0070_tax_id_formats_of_the_reference.ts";
import * as subscriptions from "./2026-11-24T0080_subscriptions.ts";
import * as paymentMethodsAndPayments from "./2026-11-24T0090_payment_methods_and_payments.ts";
import * as subscriptionUpdates from "./2026-11-24T0100_subscription_updates.ts";
import * as organizationTestClocks from "./2026-11-24T0110_organization_test_clocks.ts";
import * as customFieldsAndCheckoutLinks from "./2026-11-24T0130_custom_fields_and_checkout_links.ts";
import * as organizationLegalDetails from "./2026-11-24T0140_organization_legal_details.ts";
import * as computedCustomerAvatars from "./2026-11-24T0150_computed_customer_avatars.ts";
import * as refunds from "./2026-11-24T0160_refunds.ts";
import * as membersAndMemberSessions from "./2026-11-24T0170_members_and_member_sessions.ts";
import * as meters from "./2026-11-24T0190_meters.ts";
import * as workerLeaseRenewals from "./2026-11-24T0200_worker_lease_renewals.ts";
import * as taxCollectedWhereRegistered from "./2026-11-24T0220_tax_collected_where_registered.ts";
import * as customerMeters from "./2026-11-24T0230_customer_meters.ts";
import * as subscriptionUsageCharges from "./2026-11-24T0240_subscription_usage_charges.ts";
import * as idempotencyKeys from "./2026-11-24T0250_idempotency_keys.ts";
import * as creditNotes from "./2026-11-25T0260_credit_notes.ts";
import * as usageChargeCredits from "./2026-11-25T0270_usage_charge_credits.ts";
import * as customerMetersFromEvents from "./2026-11-25T0271_customer_meters_from_events.ts";
import * as rateLimitCounters from "./2026-11-25T0280_rate_limit_counters.ts";
import * as eventsPartitionedByMonth from "./2026-11-25T0290_events_partitioned_by_month.ts";
import * as organizationLogos from "./2026-11-25T0300_organization_logos.ts";
import * as meterBucketDeltas from "./2026-11-28T0310_meter_bucket_deltas.ts";
import * as metersAggregatedAfterIngest from "./2026-11-28T0320_meters_aggregated_after_ingest.ts";
import * as processorCustomers from "./2026-11-29T0330_processor_customers.ts";
import * as processorEvents from "./2026-11-29T0345_processor_events.ts";
import * as disputes from "./2026-11-29T0335_disputes.ts";
import * as paymentDeclineReasons from "./2026-11-29T0440_payment_decline_reasons.ts";
import * as emails from "./2026-11-29T0450_emails.ts";
import * as checkoutOpenedAt from "./2026-11-29T0505_checkout_opened_at.ts";
import * as emailReplyToAndUnsubscribe from "./2026-11-29T0700_email_reply_to_and_unsubscribe.ts";
import * as organizationUpdates from "./2026-11-29T0720_organization_updates.ts";
import * as webhookEndpointFailingSince from "./2026-11-29T0721_webhook_endpoint_failing_since.ts";
import * as portalSignIns from "./2026-11-29T0750_portal_sign_ins.ts";
import * as filesAndDownloadables from "./2026-11-30T0100_files_and_downloadables.ts";
import * as customerSeats from "./2026-11-30T0110_customer_seats.ts";
import * as webhookSecretRotation from "./2026-11-30T0130_webhook_secret_rotation.ts";
import * as eventTypes from "./2026-11-30T0131_event_types.ts";
import * as customerEmailUpdates from "./2026-11-30T0140_customer_email_updates.ts";
import * as wallets from "./2026-11-30T0141_wallets.ts";
import * as metricDashboards from "./2026-11-30T0142_metric_dashboards.ts";
import * as organizationNotificationSettings from "./2026-11-30T0150_organization_notification_settings.ts";
import * as emailsFreshPending from "./2026-11-30T0151_emails_fresh_pending.ts";
import * as licenseSigningKeys from "./2026-11-30T0160_license_signing_keys.ts";
import * as licenseActivationHeartbeats from "./2026-11-30T0161_license_activation_heartbeats.ts";
import * as emailsUnsentIndex from "./2026-11-30T0170_emails_unsent_index.ts";
import * as seatGrantsPerHolder from "./2026-11-30T0180_seat_grants_per_holder.ts";
import * as productMediaFiles from "./2026-11-30T0185_product_media_files.ts";
import * as webhookOrderingKeys from "./2026-12-01T0100_webhook_ordering_keys.ts";
import * as metricOrderRollups from "./2026-12-01T0400_metric_order_rollups.ts";
import * as organizationStatus from "./2026-12-01T0700_organization_status.ts";
import * as metricOrderDayRollups from "./2026-12-02T0200_metric_order_day_rollups.ts";
import * as metricOrderRollupSlots from "./2026-12-02T0700_metric_order_rollup_slots.ts";
import * as metricOrderDayRollupSlots from "./2026-12-02T0800_metric_order_day_rollup_slots.ts";
import * as metricSubscriptionDayRollups from "./2026-12-03T0100_metric_subscription_day_rollups.ts";
import * as metricSubscriptionFlowRollups from "./2026-12-03T0200_metric_subscription_flow_rollups.ts";
import * as eventsDerivedColumns from "./2026-12-04T0200_events_derived_columns.ts";
import * as metricNewSubscriptionDayRollups from "./2026-12-04T0300_metric_new_subscription_day_rollups.ts";
import * as metricCheckoutRollups from "./2026-12-04T0400_metric_checkout_rollups.ts";
import * as metricOrderDayLags from "./2026-12-04T0500_metric_order_day_lags.ts";
import * as metricNewSubscriptionPeriodEnds from "./2026-12-05T0100_metric_new_subscription_period_ends.ts";

/**
 * Every migration, in the order Kysely runs them: it sorts them by name, whatever the order here
 * (test/db/migrations.test.ts keeps the two the same). A new migration takes a name that sorts after
 * the last one. Imported one by one rather than read from the folder, so that tsx, Node's own type
 * stripping, vitest and bundlers all see the same list.
 */
export const migrations: Record<string, Migration> = {
  "2026-11-22T0001_foundation": foundation,
  "2026-11-22T0002_webhook_events": webhookEvents,
  "2026-11-22T0010_events": events,
  "2026-11-22T0020_webhooks": webhooks,
  "2026-11-22T0030_customer_sessions_and_catalog_columns": customerSessionsAndCatalogColumns,
  "2026-11-22T0040_orders_grants_and_license_keys": ordersGrantsAndLicenseKeys,
  "2026-11-22T0050_order_documents": orderDocuments,
  "2026-11-22T0051_order_list_indexes": orderListIndexes,
  "2026-11-22T0065_worker_leases": workerLeases,
  "2026-11-24T0070_tax_id_formats_of_the_reference": taxIdFormatsOfTheReference,
  "2026-11-24T0080_subscriptions": subscriptions,
  "2026-11-24T0090_payment_methods_and_payments": paymentMethodsAndPayments,
  "2026-11-24T0100_subscription_updates": subscriptionUpdates,
  "2026-11-24T0110_organization_test_clocks": organizationTestClocks,
  "2026-11-24T0130_custom_fields_and_checkout_links": customFieldsAndCheckoutLinks,
  "2026-11-24T0140_organization_legal_details": organizationLegalDetails,
  "2026-11-24T0150_computed_customer_avatars": computedCustomerAvatars,
  "2026-11-24T0160_refunds": refunds,
  "2026-11-24T0170_members_and_member_sessions": membersAndMemberSessions,
  "2026-11-24T0190_meters": meters,
  "2026-11-24T0200_worker_lease_renewals": workerLeaseRenewals,
  "2026-11-24T0220_tax_collected_where_registered": taxCollectedWhereRegistered,
  "2026-11-24T0230_customer_meters": customerMeters,
  "2026-11-24T0240_subscription_usage_charges": subscriptionUsageCharges,
  "2026-11-24T0250_idempotency_keys": idempotencyKeys,
  "2026-11-25T0260_credit_notes": creditNotes,
  "2026-11-25T0270_usage_charge_credits": usageChargeCredits,
  "2026-11-25T0271_customer_meters_from_events": customerMetersFromEvents,
  "2026-11-25T0280_rate_limit_counters": rateLimitCounters,
  "2026-11-25T0290_events_partitioned_by_month": eventsPartitionedByMonth,
  "2026-11-25T0300_organization_logos": organizationLogos,
  "2026-11-28T0310_meter_bucket_deltas": meterBucketDeltas,
  "2026-11-28T0320_meters_aggregated_after_ingest": metersAggregatedAfterIngest,
  "2026-11-29T0330_processor_customers": processorCustomers,
  "2026-11-29T0335_disputes": disputes,
  "2026-11-29T0345_processor_events": processorEvents,
  "2026-11-29T0440_payment_decline_reasons": paymentDeclineReasons,
  "2026-11-29T0450_emails": emails,
  "2026-11-29T0505_checkout_opened_at": checkoutOpenedAt,
  "2026-11-29T0700_email_reply_to_and_unsubscribe": emailReplyToAndUnsubscribe,
  "2026-11-29T0720_organization_updates": organizationUpdates,
  "2026-11-29T0721_webhook_endpoint_failing_since": webhookEndpointFailingSince,
  "2026-11-29T0750_portal_sign_ins": portalSignIns,
  "2026-11-30T0100_files_and_downloadables": filesAndDownloadables,
  "2026-11-30T0110_customer_seats": customerSeats,
  "2026-11-30T0130_webhook_secret_rotation": webhookSecretRotation,
  "2026-11-30T0131_event_types": eventTypes,
  "2026-11-30T0140_customer_email_updates": customerEmailUpdates,
  "2026-11-30T0141_wallets": wallets,
  "2026-11-30T0142_metric_dashboards": metricDashboards,
  "2026-11-30T0150_organization_notification_settings": organizationNotificationSettings,
  "2026-11-30T0151_emails_fresh_pending": emailsFreshPending,
  "2026-11-30T0160_license_signing_keys": licenseSigningKeys,
  "2026-11-30T0161_license_activation_heartbeats": licenseActivationHeartbeats,
  "2026-11-30T0170_emails_unsent_index": emailsUnsentIndex,
  "2026-11-30T0180_seat_grants_per_holder": seatGrantsPerHolder,
  "2026-11-30T0185_product_media_files": productMediaFiles,
  "2026-12-01T0100_webhook_ordering_keys": webhookOrderingKeys,
  "2026-12-01T0400_metric_order_rollups": metricOrderRollups,
  "2026-12-01T0700_organization_status": organizationStatus,
  "2026-12-02T0200_metric_order_day_rollups": metricOrderDayRollups,
  "2026-12-02T0700_metric_order_rollup_slots": metricOrderRollupSlots,
  "2026-12-02T0800_metric_order_day_rollup_slots": metricOrderDayRollupSlots,
  "2026-12-03T0100_metric_subscription_day_rollups": metricSubscriptionDayRollups,
  "2026-12-03T0200_metric_subscription_flow_rollups": metricSubscriptionFlowRollups,
  "2026-12-04T0200_events_derived_columns": eventsDerivedColumns,
  "2026-12-04T0300_metric_new_subscription_day_rollups": metricNewSubscriptionDayRollups,
  "2026-12-04T0400_metric_checkout_rollups": metricCheckoutRollups,
  "2026-12-04T0500_metric_order_day_lags": metricOrderDayLags,
  "2026-12-05T0100_metric_new_subscription_period_ends": metricNewSubscriptionPeriodEnds,
};

/**
 * Earlier names of renamed migrations, with their current ones. Kysely refuses to run against a
 * database whose history names a migration it does not know, so the history of a database migrated
 * before a rename is brought to the current names first (src/db/migrate.ts). A rename keeps the
 * timestamp, hence the order; the entries stay for as long as such a database may exist.
 */
export const renamedMigrations: Readonly<Record<string, string>> = {
  "2026-11-22T0030_catalog": "2026-11-22T0030_customer_sessions_and_catalog_columns",
  "2026-11-22T0040_checkout_lifecycle": "2026-11-22T0040_orders_grants_and_license_keys",
};
