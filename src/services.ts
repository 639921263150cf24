import type { Deps } from "./context.ts";
import { checkoutAbandonment as abandonmentFlow } from "./flows/abandon-checkout.ts";
import { checkoutConfirmation as confirmationFlow } from "./flows/confirm-checkout.ts";
import { subscriptionChanges } from "./flows/change-subscription.ts";
import { benefitDeletion } from "./flows/delete-benefit.ts";
import { customerDeletion } from "./flows/delete-customer.ts";
import { licenseKeyUpdating } from "./flows/update-license-key.ts";
import { subscriptionRenewals as renewalsFlow } from "./flows/renew-subscriptions.ts";
import { remindSubscribers } from "./flows/remind-subscribers.ts";
import { cullSilentLicenseActivations } from "./flows/cull-silent-activations.ts";
import { createBenefitGrantService } from "./modules/benefits/benefit-grant-reads.service.ts";
import { createBenefitService } from "./modules/benefits/benefits.service.ts";
import { createFileService } from "./modules/files/files.service.ts";
import { createPublicFiles } from "./modules/files/public-files.service.ts";
import { createDownloadableService } from "./modules/files/downloadables.service.ts";
import { createPortalBenefitGrantService } from "./modules/customer-portal/portal-benefit-grants.service.ts";
import type { OrganizationScope, TokenAuthenticator } from "./http/auth.ts";
import { cachePrincipals } from "./http/auth-cache.ts";
import { createCheckoutClientService } from "./modules/checkouts/checkouts.client.service.ts";
import { createCheckoutService, createCheckoutSessions } from "./modules/checkouts/checkouts.service.ts";
import { createPortalCustomerService } from "./modules/customer-portal/portal-customers.service.ts";
import { createPortalOrderService } from "./modules/customer-portal/portal-orders.service.ts";
import { createPortalEmailUpdateService } from "./modules/customer-portal/portal-email-update.service.ts";
import { createMetricDashboardService } from "./modules/metrics/metric-dashboards.service.ts";
import { createPortalWalletService } from "./modules/customer-portal/portal-wallets.service.ts";
import { createPortalOrganizationService } from "./modules/customer-portal/portal-organizations.service.ts";
import { createPortalSubscriptionService } from "./modules/customer-portal/portal-subscriptions.service.ts";
import { createPortalOrderPayments } from "./modules/customer-portal/portal-order-payments.service.ts";
import { createPortalPaymentMethodService } from "./modules/customer-portal/portal-payment-methods.service.ts";
import { createPortalSignInService } from "./modules/customer-portal/portal-sign-in.service.ts";
import { createPortalPageSessions } from "./modules/portal-page/portal-page.session.ts";
import { createCheckoutLinkRedirect } from "./modules/checkout-links/checkout-links.redirect.ts";
import { createCheckoutLinkService } from "./modules/checkout-links/checkout-links.service.ts";
import { createCustomFieldService } from "./modules/custom-fields/custom-fields.service.ts";
import { createCustomerSessionService } from "./modules/customers/customer-sessions.service.ts";
import { createCustomerService } from "./modules/customers/customers.service.ts";
import { createMemberService } from "./modules/customers/members.service.ts";
import { createCustomerSeatService } from "./modules/customer-seats/customer-seats.service.ts";
import {
  revokeMemberSeats,
  seatIdsOfSubscription,
  subscriptionIdOfSeat,
  syncProductSeats,
} from "./modules/customer-seats/customer-seats.steps.ts";
import { createPortalMemberService } from "./modules/customer-portal/portal-members.service.ts";
import { createCustomerStateService } from "./modules/customer-state/customer-state.service.ts";
import { createDiscountService } from "./modules/discounts/discounts.service.ts";
import { createEventService } from "./modules/events/events.service.ts";
import { createEventTypeService } from "./modules/events/event-types.service.ts";
import { createMeterService } from "./modules/meters/meters.service.ts";
import { createCustomerMeterService } from "./modules/customer-meters/customer-meters.service.ts";
import { createMeterQuantityService } from "./modules/meters/meter-quantities.service.ts";
import { createMetricsService } from "./modules/metrics/metrics.service.ts";
import { createLicenseKeyService } from "./modules/license-keys/license-keys.service.ts";
import { createLicenseFileService } from "./modules/license-keys/license-files.service.ts";
import { createOrderDocumentService } from "./modules/orders/order-documents.service.ts";
import { createOrderService } from "./modules/orders/orders.service.ts";
import { createSubscriptionService } from "./modules/subscriptions/subscriptions.service.ts";
import { createTestClock } from "./modules/test-clock/test-clock.service.ts";
import { createAccessTokenService } from "./modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "./modules/organizations/organizations.service.ts";
import type { PaymentProcessor } from "./adapters/payment-processors/payment-processor.ts";
import { noPaymentForm, sandboxPaymentForm, stripePaymentForm, type PaymentFormSetup } from "./modules/checkout-page/payment-form.ts";
import { unconfiguredProcessor } from "./adapters/payment-processors/unconfigured.processor.ts";
import { sandboxProcessor } from "./adapters/payment-processors/sandbox.processor.ts";
import { createStripeProcessor } from "./adapters/payment-processors/stripe.processor.ts";
import type { PaymentsConfig } from "./payments-config.ts";
import { createProductService } from "./modules/products/products.service.ts";
import { createPaymentService } from "./modules/payments/payments.service.ts";
import { customerEmailIn } from "./modules/customers/customers.steps.ts";
import { checkoutIdOfOrder, orderFromCheckoutIn, productIdOfOrder } from "./modules/orders/orders.steps.ts";
import { bindOrderDependentReads } from "./modules/orders/order-dependent-reads.ts";
import { bindCustomerDependentReads } from "./modules/customers/customer-dependent-reads.ts";
import { bindBenefitDependentReads } from "./modules/benefits/benefit-dependent-reads.ts";
import { bindMeterDependentReads } from "./modules/meters/meter-dependent-reads.ts";
import { bindSeatDependentReads } from "./modules/customer-seats/seat-dependent-reads.ts";
import { meterExists } from "./modules/meters/meters.steps.ts";
import { benefitIdsOfProduct, benefitPositionOnProduct } from "./modules/products/products.steps.ts";
import {
  earliestUserEventAt,
  eventIngestedSince,
  eventRows,
  ingestedAtAfter,
  organizationHasEventsBefore,
} from "./modules/events/events.steps.ts";
import { activateCustomerMeters, customerMeterCreditsForShare } from "./modules/customer-meters/customer-meters.steps.ts";
import { checkoutBuyers } from "./modules/checkouts/checkouts.steps.ts";
import { succeededRefunds } from "./modules/refunds/refunds.steps.ts";
import {
  findSubscription,
  findSubscriptionForUpdate,
  buyerProductIdOfSubscription,
  hasBillableSubscription,
  productIdOfSubscription,
  subscriptionCheckouts,
  subscriptionFromCheckoutIn,
  subscriptionIdsOfProduct,
  subscriptionJson,
} from "./modules/subscriptions/subscriptions.steps.ts";
import { createRefundService } from "./modules/refunds/refunds.service.ts";
import { createDisputeService } from "./modules/disputes/disputes.service.ts";
import type { RefundCreate } from "./modules/refunds/refund-inputs.schemas.ts";
import { recoverRefund, refundOrder, settleRefundLater } from "./flows/refund-order.ts";
import { createDraftOrder } from "./flows/draft-order.ts";
import { finalizeOrder } from "./flows/finalize-order.ts";
import type { DraftOrderFlows } from "./modules/orders/orders.routes.ts";
import { forgetDetachedMethod } from "./flows/detach-payment-method.ts";
import { createProcessorEventInbox } from "./modules/processor-events/processor-events.service.ts";
import { buildStripeEventHandlers } from "./modules/processor-events/stripe-event-handlers.ts";
import { rateTableTaxEngine, type TaxEngine } from "./adapters/tax-engine/tax.engine.ts";
import { createWebhookDeliveryService } from "./modules/webhooks/webhook-delivery.service.ts";
import { createWebhookService } from "./modules/webhooks/webhooks.service.ts";
import type { BlobStore } from "./adapters/blob-stores/blob-store.ts";
import { createBlobStore } from "./adapters/blob-stores/configured-blob-store.ts";
import type { MailTransport } from "./adapters/mail-transports/mail-transport.ts";
import { createSmtpTransport } from "./adapters/mail-transports/smtp.transport.ts";
import { createEmailDelivery } from "./modules/emails/email-delivery.service.ts";
import { createEmailOutbox } from "./modules/emails/emails.service.ts";

// Orders, customers, benefits, meters and seats read these modules (which build on them), mostly inside their own statements:
// bound once, as the process loads its composition root, so every reader, whatever calls it, has them.
bindOrderDependentReads({ subscriptionJson, subscriptionCheckouts, checkoutBuyers, succeededRefunds });
bindCustomerDependentReads({ earliestUserEventAt, hasBillableSubscription });
bindBenefitDependentReads({
  meterExists,
  orderFromCheckoutIn,
  subscriptionFromCheckoutIn,
  productIdOfOrder,
  productIdOfSubscription,
  buyerProductIdOfSubscription,
  benefitPositionOnProduct,
  benefitIdsOfProduct,
  seatIdsOfSubscription,
  subscriptionIdOfSeat,
});
bindSeatDependentReads({ findSubscription, findSubscriptionForUpdate, subscriptionIdsOfProduct });
bindMeterDependentReads({
  eventRows,
  ingestedAtAfter,
  eventIngestedSince,
  organizationHasEventsBefore,
  activateCustomerMeters,
  customerMeterCreditsForShare,
});

/**
 * Who moves the money, as configured (`PAYMENT_PROCESSOR`): the configuration already refused the
 * sandbox in production and Stripe keys of the wrong mode.
 */
function configuredProcessor(payments: PaymentsConfig): PaymentProcessor {
  if (payments.processor === "stripe") return createStripeProcessor(payments.stripe);
  return payments.processor === "sandbox" ? sandboxProcessor : unconfiguredProcessor;
}

/** The outside systems the services talk through; each is chosen here and nowhere else. */
export interface Adapters {
  payments: PaymentProcessor;
  taxEngine: TaxEngine;
  blobs: BlobStore;
  /** The SMTP server of `SMTP_URL`; null without it (emails are kept, never sent). */
  mail: MailTransport | null;
}

/** The adapters of built services, for a second set on other dependencies (the in-process worker's pool) that talks through the same ones. */
export const sharedAdapters = ({ payments, taxEngine, blobs, mail }: Adapters): Adapters => ({ payments, taxEngine, blobs, mail });

/**
 * The composition root: every adapter and service, built once per application for the routes, and
 * once more on the worker's own pool for the background tasks (`tasks.ts`) with the same adapters
 * (`sharedAdapters`). Tests may pass adapters of their own.
 */
export function buildServices(deps: Deps, overrides: Partial<Adapters> = {}) {
  const adapters: Adapters = {
    payments: overrides.payments ?? configuredProcessor(deps.config.payments),
    taxEngine: overrides.taxEngine ?? rateTableTaxEngine,
    blobs: overrides.blobs ?? createBlobStore(deps),
    mail: overrides.mail !== undefined ? overrides.mail : deps.config.email.smtp && createSmtpTransport(deps.config.email.smtp),
  };

  const accessTokens = createAccessTokenService(deps);
  const customerSessions = createCustomerSessionService(deps);
  const authenticators: Map<string, TokenAuthenticator> = new Map([...accessTokens.authenticators(), ...customerSessions.authenticators()]);
  for (const [prefix, authenticate] of authenticators) {
    authenticators.set(prefix, cachePrincipals(authenticate, { ttlMs: deps.config.authCacheMs, maxEntries: 10_000, now: deps.now }));
  }

  // The pages' payment step follows the processor: the sandbox's test cards, Stripe's Payment Element, else none.
  const checkoutPaymentForm: PaymentFormSetup =
    adapters.payments === sandboxProcessor
      ? sandboxPaymentForm
      : deps.config.payments.processor === "stripe"
        ? stripePaymentForm(deps.config.payments.stripe)
        : noPaymentForm;
  // Stripe.js in the buyer's browser needs the publishable key; hosted Polar puts it on every new session.
  const processorMetadata: Record<string, string> =
    checkoutPaymentForm.form.kind === "stripe" ? { publishable_key: checkoutPaymentForm.form.publishableKey } : {};
  const checkoutSessions = createCheckoutSessions(deps, adapters.taxEngine, processorMetadata);
  const subscriptionFlows = { deps, payments: adapters.payments, taxEngine: adapters.taxEngine };
  const subscriptionRenewals = renewalsFlow(subscriptionFlows);
  const subscriptionUpdates = subscriptionChanges(subscriptionFlows);
  const checkoutFlows = { deps, sessions: checkoutSessions, payments: adapters.payments };
  const checkoutConfirmation = confirmationFlow(checkoutFlows);
  const orders = createOrderService(deps);
  const orderDocuments = createOrderDocumentService(deps, adapters.blobs);
  const checkouts = createCheckoutService(deps, checkoutSessions);
  const portalOrderPayments = createPortalOrderPayments(deps, subscriptionRenewals);
  const customerMeters = createCustomerMeterService(deps);
  return {
    ...adapters,
    checkoutPaymentForm,
    authenticators,
    accessTokens,
    organizations: createOrganizationService(deps),
    customers: createCustomerService(deps),
    customerDeletion: customerDeletion(deps),
    customerSessions,
    members: createMemberService(deps, revokeMemberSeats),
    customerSeats: createCustomerSeatService(deps),
    portalMembers: createPortalMemberService(deps),
    portalSignIn: createPortalSignInService(deps),
    customerStates: createCustomerStateService(deps, customerMeters),
    discounts: createDiscountService(deps),
    customFields: createCustomFieldService(deps),
    products: createProductService(deps, syncProductSeats),
    benefits: createBenefitService(deps),
    benefitDeletion: benefitDeletion(deps),
    benefitGrants: createBenefitGrantService(deps),
    portalBenefitGrants: createPortalBenefitGrantService(deps),
    checkoutSessions,
    checkoutConfirmation,
    checkoutAbandonment: abandonmentFlow(checkoutFlows),
    checkouts,
    checkoutLinks: createCheckoutLinkService(deps),
    checkoutLinkRedirect: createCheckoutLinkRedirect(deps, checkouts),
    checkoutClient: createCheckoutClientService(deps, checkoutSessions, checkoutConfirmation),
    events: createEventService(deps),
    eventTypes: createEventTypeService(deps),
    meters: createMeterService(deps),
    meterQuantities: createMeterQuantityService(deps),
    metrics: createMetricsService(deps),
    customerMeters,
    webhooks: createWebhookService(deps),
    webhookDelivery: createWebhookDeliveryService(deps),
    files: createFileService(deps, adapters.blobs),
    publicFiles: createPublicFiles(deps, adapters.blobs),
    downloadables: createDownloadableService(deps, adapters.blobs),
    licenseKeys: createLicenseKeyService(deps),
    licenseFiles: createLicenseFileService(deps),
    licenseKeyUpdating: licenseKeyUpdating(deps),
    portalCustomers: createPortalCustomerService(deps),
    portalOrganizations: createPortalOrganizationService(deps),
    portalEmailUpdates: createPortalEmailUpdateService(deps),
    portalWallets: createPortalWalletService(deps),
    metricDashboards: createMetricDashboardService(deps),
    orders,
    portalOrders: createPortalOrderService(orders),
    orderDocuments,
    subscriptions: createSubscriptionService(deps),
    subscriptionRenewals,
    /** The hourly scan writing the renewal and trial-end reminders due. */
    subscriptionReminders: () => remindSubscribers(subscriptionFlows),
    licenseActivationsCull: () => cullSilentLicenseActivations(deps),
    subscriptionUpdates,
    portalSubscriptions: createPortalSubscriptionService(deps, subscriptionUpdates),
    testClock: createTestClock(deps, subscriptionRenewals, checkoutSessions),
    portalOrderPayments,
    portalPaymentMethods: createPortalPaymentMethodService(deps, adapters.payments, portalOrderPayments),
    paymentRecords: createPaymentService(deps, { checkoutIdOfOrder, orderFromCheckoutIn, customerEmailIn }),
    refunds: createRefundService(deps, orderDocuments),
    refundOrder: (input: RefundCreate, allowed: OrganizationScope) => refundOrder(deps, adapters.payments, input, allowed),
    draftOrders: {
      create: (body, principal) => createDraftOrder(deps, adapters.taxEngine, body, principal),
      finalize: (id, body, allowed) => finalizeOrder({ deps, payments: adapters.payments }, id, body, allowed),
    } satisfies DraftOrderFlows,
    recoverRefund: (refundId: string) => recoverRefund(deps, adapters.payments, refundId),
    disputes: createDisputeService(deps, adapters.payments),
    emailDelivery: createEmailDelivery(deps, adapters.mail),
    emails: createEmailOutbox(deps),
    portalPageSessions: createPortalPageSessions(deps, authenticators),
    /** Stripe's webhook inbox; null unless Stripe is the processor (the route then does not exist). */
    processorEvents:
      deps.config.payments.processor === "stripe"
        ? createProcessorEventInbox(
            deps,
            deps.config.payments.stripe,
            buildStripeEventHandlers(
              {
                settleRefund: (trx, update, now) => settleRefundLater(trx, deps, update, now),
                forgetDetachedMethod,
                settleCheckout: checkoutConfirmation.settleFromProcessor,
                settleOrderPayment: subscriptionRenewals.settleOrderIntent,
              },
              deps.config.email,
            ),
          )
        : null,
  };
}
export type Services = ReturnType<typeof buildServices>;
