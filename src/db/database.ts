import type { ExpressionBuilder, Kysely, Transaction } from "kysely";
import type { CheckoutProductsTable, CheckoutsTable } from "../modules/checkouts/checkouts.table.ts";
import type { CustomFieldsTable, ProductCustomFieldsTable } from "../modules/custom-fields/custom-fields.table.ts";
import type { CheckoutLinkProductsTable, CheckoutLinksTable } from "../modules/checkout-links/checkout-links.table.ts";
import type { CustomersTable } from "../modules/customers/customers.table.ts";
import type { CustomerSessionsTable } from "../modules/customers/customer-sessions.table.ts";
import type { MemberSessionsTable } from "../modules/customers/member-sessions.table.ts";
import type { PortalSignInsTable } from "../modules/customers/portal-sign-ins.table.ts";
import type { CustomerEmailUpdatesTable } from "../modules/customers/customer-email-updates.table.ts";
import type { WalletsTable, WalletTransactionsTable } from "../modules/wallets/wallets.table.ts";
import type { MetricDashboardsTable } from "../modules/metrics/metric-dashboards.table.ts";
import type {
  MetricOrderDayRollupsTable,
  MetricOrderFactsTable,
  MetricOrderRollupsTable,
} from "../modules/metrics/metric-rollups.table.ts";
import type { MembersTable } from "../modules/customers/members.table.ts";
import type { CustomerSeatsTable } from "../modules/customer-seats/customer-seats.table.ts";
import type { DiscountProductsTable, DiscountsTable } from "../modules/discounts/discounts.table.ts";
import type { EventsTable, EventTypesTable } from "../modules/events/events.table.ts";
import type { CustomerMetersTable } from "../modules/customer-meters/customer-meters.table.ts";
import type { MeterBucketValuesTable, MeterBucketsTable, MetersTable } from "../modules/meters/meters.table.ts";
import type {
  OrganizationAccessTokensTable,
  OrganizationsTable,
  PersonalAccessTokensTable,
} from "../modules/organizations/organizations.table.ts";
import type { OrganizationLogosTable } from "../modules/organizations/organization-logos.table.ts";
import type { ProductBenefitsTable, ProductMediasTable, ProductPricesTable, ProductsTable } from "../modules/products/products.table.ts";
import type { WebhookEventsTable } from "../modules/webhooks/webhook-events.table.ts";
import type { BillingCountersTable, CreditNotesTable, OrderItemsTable, OrdersTable } from "../modules/orders/orders.table.ts";
import type { BenefitGrantsTable, BenefitsTable } from "../modules/benefits/benefits.table.ts";
import type { LicenseKeyActivationsTable, LicenseKeysTable, LicenseSigningKeysTable } from "../modules/license-keys/license-keys.table.ts";
import type { DownloadablesTable, FilesTable } from "../modules/files/files.table.ts";
import type { PaymentMethodsTable, PaymentsTable } from "../modules/payments/payments.table.ts";
import type { RefundsTable } from "../modules/refunds/refunds.table.ts";
import type { ProcessorEventsTable } from "../modules/processor-events/processor-events.table.ts";
import type { EmailsTable } from "../modules/emails/emails.table.ts";
import type { DisputesTable } from "../modules/disputes/disputes.table.ts";
import type {
  SubscriptionBillingEntriesTable,
  SubscriptionPricesTable,
  SubscriptionsTable,
  SubscriptionUsageChargesTable,
} from "../modules/subscriptions/subscriptions.table.ts";
import type { IdempotencyKeysTable } from "../http/idempotency.table.ts";
import type { RateLimitCountersTable } from "../http/rate-limit.table.ts";
import type { WebhookDeliveriesTable, WebhookEndpointEventsTable, WebhookEndpointsTable } from "../modules/webhooks/webhooks.table.ts";

/** Every table, as Kysely sees it. Each feature owns its table interfaces. */
export interface Database {
  organizations: OrganizationsTable;
  organization_logos: OrganizationLogosTable;
  personal_access_tokens: PersonalAccessTokensTable;
  organization_access_tokens: OrganizationAccessTokensTable;
  products: ProductsTable;
  product_prices: ProductPricesTable;
  benefits: BenefitsTable;
  product_benefits: ProductBenefitsTable;
  product_medias: ProductMediasTable;
  discounts: DiscountsTable;
  discount_products: DiscountProductsTable;
  customers: CustomersTable;
  checkouts: CheckoutsTable;
  checkout_products: CheckoutProductsTable;
  webhook_events: WebhookEventsTable;
  customer_sessions: CustomerSessionsTable;
  members: MembersTable;
  member_sessions: MemberSessionsTable;
  portal_sign_ins: PortalSignInsTable;
  customer_email_updates: CustomerEmailUpdatesTable;
  wallets: WalletsTable;
  wallet_transactions: WalletTransactionsTable;
  metric_dashboards: MetricDashboardsTable;
  metric_order_facts: MetricOrderFactsTable;
  metric_order_rollups: MetricOrderRollupsTable;
  metric_order_day_rollups: MetricOrderDayRollupsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  billing_counters: BillingCountersTable;
  credit_notes: CreditNotesTable;
  benefit_grants: BenefitGrantsTable;
  license_keys: LicenseKeysTable;
  license_key_activations: LicenseKeyActivationsTable;
  files: FilesTable;
  downloadables: DownloadablesTable;
  license_signing_keys: LicenseSigningKeysTable;
  events: EventsTable;
  event_types: EventTypesTable;
  meters: MetersTable;
  meter_buckets: MeterBucketsTable;
  meter_bucket_deltas: MeterBucketsTable;
  meter_bucket_values: MeterBucketValuesTable;
  customer_meters: CustomerMetersTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_endpoint_events: WebhookEndpointEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  subscriptions: SubscriptionsTable;
  subscription_prices: SubscriptionPricesTable;
  subscription_billing_entries: SubscriptionBillingEntriesTable;
  subscription_usage_charges: SubscriptionUsageChargesTable;
  payment_methods: PaymentMethodsTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  processor_events: ProcessorEventsTable;
  emails: EmailsTable;
  disputes: DisputesTable;
  custom_fields: CustomFieldsTable;
  product_custom_fields: ProductCustomFieldsTable;
  checkout_links: CheckoutLinksTable;
  checkout_link_products: CheckoutLinkProductsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limit_counters: RateLimitCountersTable;
  customer_seats: CustomerSeatsTable;
}

export type Db = Kysely<Database>;
/** What repositories take as their first argument: the pool or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;
/**
 * What a module's query fragment starts its sub-select from: the reader's executor or expression
 * builder, in whatever scope, so the fragment joins the reader's one statement (it correlates
 * through the references the reader passes it).
 */
export type SubqueryScope = Pick<ExpressionBuilder<Database, never>, "selectFrom">;
