import { readFileSync } from "node:fs";
import type { Static, TSchema } from "@sinclair/typebox";
import type { models } from "@polar-sh/sdk/2026-04";
import { describe, expect, it } from "vitest";
import { Address } from "../../src/schema/address.ts";
import { RecurringInterval } from "../../src/schema/primitives.ts";
import { TaxBehaviorOption, TrialInterval } from "../../src/schema/extra-primitives.ts";
import * as P from "../../src/modules/products/products.schemas.ts";
import * as D from "../../src/modules/discounts/discounts.schemas.ts";
import * as C from "../../src/modules/checkouts/checkouts.schemas.ts";
import * as O from "../../src/modules/organizations/organizations.schemas.ts";
import * as OI from "../../src/modules/organizations/organization-inputs.schemas.ts";
import * as Cu from "../../src/modules/customers/customers.schemas.ts";
import * as CS from "../../src/modules/customers/customer-sessions.schemas.ts";
import * as PI from "../../src/modules/products/product-inputs.schemas.ts";
import * as BI from "../../src/modules/benefits/benefit-inputs.schemas.ts";
import * as B from "../../src/modules/benefits/benefits.schemas.ts";
import { Pagination } from "../../src/schema/pagination.ts";
import { TaxIdFormat } from "../../src/adapters/tax-engine/tax-id.ts";
import * as CI from "../../src/modules/checkouts/checkout-inputs.schemas.ts";
import * as CF from "../../src/modules/custom-fields/custom-fields.schemas.ts";
import type * as CFI from "../../src/modules/custom-fields/custom-field-inputs.schemas.ts";
import * as CL from "../../src/modules/checkout-links/checkout-links.schemas.ts";
import * as E from "../../src/modules/events/events.schemas.ts";
import * as M from "../../src/modules/meters/meters.schemas.ts";
import * as MI from "../../src/modules/meters/meter-inputs.schemas.ts";
import type * as TI from "../../src/schema/time-intervals.ts";
import type * as MT from "../../src/modules/metrics/metrics.schemas.ts";
import * as W from "../../src/modules/webhooks/webhooks.schemas.ts";
import * as LK from "../../src/modules/license-keys/license-keys.schemas.ts";
import * as CPC from "../../src/modules/customer-portal/portal-customers.schemas.ts";
import * as OR from "../../src/modules/orders/orders.schemas.ts";
import * as CPO from "../../src/modules/customer-portal/portal-orders.schemas.ts";
import * as OV from "../../src/modules/organizations/organization-views.schemas.ts";
import * as SU from "../../src/modules/subscriptions/subscriptions.schemas.ts";
import type * as SI from "../../src/modules/subscriptions/subscription-inputs.schemas.ts";
import type * as CPS from "../../src/modules/customer-portal/portal-subscriptions.schemas.ts";
import * as CST from "../../src/modules/customer-state/customer-state.schemas.ts";
import * as CM from "../../src/modules/customer-meters/customer-meters.schemas.ts";
import * as BG from "../../src/modules/benefits/benefit-grants.schemas.ts";
import * as CPBG from "../../src/modules/customer-portal/portal-benefit-grants.schemas.ts";
import { REFERENCE_MISSING, fullReferencePath, referenceAvailable } from "../helpers/reference-path.ts";
import * as PM from "../../src/modules/payments/payment-methods.schemas.ts";
import * as PA from "../../src/modules/payments/payments.schemas.ts";
import * as RF from "../../src/modules/refunds/refunds.schemas.ts";
import * as RI from "../../src/modules/refunds/refund-inputs.schemas.ts";
import * as DS from "../../src/modules/disputes/disputes.schemas.ts";
import * as ME from "../../src/modules/customers/members.schemas.ts";
import * as CPM from "../../src/modules/customer-portal/portal-members.schemas.ts";
import * as CPSS from "../../src/modules/customer-portal/portal-customer-session.schemas.ts";

// ---------------------------------------------------------------------------------------------
// Compile-time contract: what we emit must type-check as the official SDK's model of the same
// name. `tsc --noEmit` fails on the first schema that drifts.
// ---------------------------------------------------------------------------------------------

type AssertAssignable<A, B> = [A] extends [B] ? true : never;
type AssertEqual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

// Where SDK 1.0.1 is ahead of the 2026-04 reference document, the reference wins. Each waiver is
// listed here, and is itself asserted to still exist in the SDK so it gets revisited if it goes away.
type SdkOnlyProductKeys = "is_deletable";
type SdkOnlyCheckoutKeys = "units" | "min_units" | "max_units";
const _waiverProduct: AssertAssignable<SdkOnlyProductKeys, keyof models.Product> = true;
const _waiverCheckout: AssertAssignable<SdkOnlyCheckoutKeys, keyof models.Checkout> = true;
// The SDK splits BenefitPublic into per-type variants and gives the meter-credit one `properties`;
// the reference has a single shape without `properties`.
const _waiverBenefit: AssertAssignable<"properties", keyof models.BenefitMeterCreditPublic> = true;

type SdkBenefitPublic = DistributiveOmit<models.BenefitPublic, "properties">;
type SdkCheckoutProduct = Omit<models.CheckoutProduct, "benefits"> & { benefits: SdkBenefitPublic[] };
type SdkProduct = Omit<models.Product, SdkOnlyProductKeys>;
type SdkCheckout = Omit<models.Checkout, SdkOnlyCheckoutKeys | "products" | "product"> & {
  products: SdkCheckoutProduct[];
  product: SdkCheckoutProduct | null;
};

type S<T extends TSchema> = Static<T>;

// Shared primitives.
const _address: AssertAssignable<S<typeof Address>, models.Address> = true;
const _trialInterval: AssertEqual<S<ReturnType<typeof TrialInterval>>, models.TrialInterval> = true;
const _recurringInterval: AssertEqual<S<ReturnType<typeof RecurringInterval>>, models.RecurringInterval> = true;
const _taxBehaviorOption: AssertEqual<S<ReturnType<typeof TaxBehaviorOption>>, models.TaxBehaviorOption> = true;

// Products and prices.
const _productPriceSource: AssertEqual<P.ProductPriceSource, models.ProductPriceSource> = true;
const _seatTierType: AssertEqual<P.SeatTierType, models.SeatTierType> = true;
const _meterUnit: AssertEqual<P.MeterUnit, models.MeterUnit> = true;
const _productVisibility: AssertEqual<P.ProductVisibility, models.ProductVisibility> = true;
const _priceFixed: AssertAssignable<S<typeof P.ProductPriceFixed>, models.ProductPriceFixed> = true;
const _priceCustom: AssertAssignable<S<typeof P.ProductPriceCustom>, models.ProductPriceCustom> = true;
const _seatTier: AssertAssignable<S<typeof P.ProductPriceSeatTier>, models.ProductPriceSeatTier> = true;
const _seatTiers: AssertAssignable<S<typeof P.ProductPriceSeatTiersOutput>, models.ProductPriceSeatTiersOutput> = true;
const _priceSeatBased: AssertAssignable<S<typeof P.ProductPriceSeatBased>, models.ProductPriceSeatBased> = true;
const _priceMeter: AssertAssignable<S<typeof P.ProductPriceMeter>, models.ProductPriceMeter> = true;
const _priceMeteredUnit: AssertAssignable<S<typeof P.ProductPriceMeteredUnit>, models.ProductPriceMeteredUnit> = true;
const _productPrice: AssertAssignable<S<typeof P.ProductPrice>, models.ProductPrice> = true;
const _legacyFixed: AssertAssignable<S<typeof P.LegacyRecurringProductPriceFixed>, models.LegacyRecurringProductPriceFixed> = true;
const _legacyCustom: AssertAssignable<S<typeof P.LegacyRecurringProductPriceCustom>, models.LegacyRecurringProductPriceCustom> = true;
const _legacyPrice: AssertAssignable<S<typeof P.LegacyRecurringProductPrice>, models.LegacyRecurringProductPrice> = true;
const _benefitType: AssertEqual<B.BenefitType, models.BenefitType> = true;
const _benefitVisibility: AssertEqual<B.BenefitVisibility, models.BenefitVisibility> = true;
const _benefitPublic: AssertAssignable<S<typeof B.BenefitPublic>, SdkBenefitPublic> = true;
const _benefitCustom: AssertAssignable<S<typeof B.BenefitCustom>, models.BenefitCustom> = true;
const _benefitDiscord: AssertAssignable<S<typeof B.BenefitDiscord>, models.BenefitDiscord> = true;
const _benefitGitHub: AssertAssignable<S<typeof B.BenefitGitHubRepository>, models.BenefitGitHubRepository> = true;
const _benefitDownloadables: AssertAssignable<S<typeof B.BenefitDownloadables>, models.BenefitDownloadables> = true;
const _benefitLicenseKeys: AssertAssignable<S<typeof B.BenefitLicenseKeys>, models.BenefitLicenseKeys> = true;
const _benefitMeterCredit: AssertAssignable<S<typeof B.BenefitMeterCredit>, models.BenefitMeterCredit> = true;
const _benefitFeatureFlag: AssertAssignable<S<typeof B.BenefitFeatureFlag>, models.BenefitFeatureFlag> = true;
const _benefitSlack: AssertAssignable<S<typeof B.BenefitSlackSharedChannel>, models.BenefitSlackSharedChannel> = true;
const _benefit: AssertAssignable<S<typeof B.Benefit>, models.Benefit> = true;
const _media: AssertAssignable<S<typeof P.ProductMediaFileRead>, models.ProductMediaFileRead> = true;
const _checkoutProduct: AssertAssignable<S<typeof P.CheckoutProduct>, SdkCheckoutProduct> = true;
const _product: AssertAssignable<S<typeof P.Product>, SdkProduct> = true;

// Discounts.
const _discountDuration: AssertEqual<D.DiscountDuration, models.DiscountDuration> = true;
const _discountType: AssertEqual<D.DiscountType, models.DiscountType> = true;
const _cdFixedOnce: AssertAssignable<
  S<typeof D.CheckoutDiscountFixedOnceForeverDuration>,
  models.CheckoutDiscountFixedOnceForeverDuration
> = true;
const _cdFixedRepeat: AssertAssignable<S<typeof D.CheckoutDiscountFixedRepeatDuration>, models.CheckoutDiscountFixedRepeatDuration> = true;
const _cdPctOnce: AssertAssignable<
  S<typeof D.CheckoutDiscountPercentageOnceForeverDuration>,
  models.CheckoutDiscountPercentageOnceForeverDuration
> = true;
const _cdPctRepeat: AssertAssignable<
  S<typeof D.CheckoutDiscountPercentageRepeatDuration>,
  models.CheckoutDiscountPercentageRepeatDuration
> = true;
const _discountProduct: AssertAssignable<S<typeof D.DiscountProduct>, models.DiscountProduct> = true;
const _dFixedOnce: AssertAssignable<S<typeof D.DiscountFixedOnceForeverDuration>, models.DiscountFixedOnceForeverDuration> = true;
const _dFixedRepeat: AssertAssignable<S<typeof D.DiscountFixedRepeatDuration>, models.DiscountFixedRepeatDuration> = true;
const _dPctOnce: AssertAssignable<S<typeof D.DiscountPercentageOnceForeverDuration>, models.DiscountPercentageOnceForeverDuration> = true;
const _dPctRepeat: AssertAssignable<S<typeof D.DiscountPercentageRepeatDuration>, models.DiscountPercentageRepeatDuration> = true;
const _discount: AssertAssignable<S<typeof D.Discount>, models.Discount> = true;

// Checkouts and custom fields.
const _checkoutStatus: AssertEqual<C.CheckoutStatus, models.CheckoutStatus> = true;
const _taxBehavior: AssertEqual<C.TaxBehavior, models.TaxBehavior> = true;
const _paymentProcessor: AssertEqual<PM.PaymentProcessor, models.PaymentProcessor> = true;
const _fieldMode: AssertEqual<C.BillingAddressFieldMode, models.BillingAddressFieldMode> = true;
const _billingFields: AssertAssignable<S<typeof C.CheckoutBillingAddressFields>, models.CheckoutBillingAddressFields> = true;
const _cfText: AssertAssignable<S<typeof CF.CustomFieldText>, models.CustomFieldText> = true;
const _cfNumber: AssertAssignable<S<typeof CF.CustomFieldNumber>, models.CustomFieldNumber> = true;
const _cfDate: AssertAssignable<S<typeof CF.CustomFieldDate>, models.CustomFieldDate> = true;
const _cfCheckbox: AssertAssignable<S<typeof CF.CustomFieldCheckbox>, models.CustomFieldCheckbox> = true;
const _cfSelect: AssertAssignable<S<typeof CF.CustomFieldSelect>, models.CustomFieldSelect> = true;
const _customField: AssertAssignable<S<typeof CF.CustomField>, models.CustomField> = true;
const _attachedField: AssertAssignable<S<typeof CF.AttachedCustomField>, models.AttachedCustomField> = true;
const _customFieldType: AssertEqual<S<typeof CF.CustomFieldType>, models.CustomFieldType> = true;
const _customFieldList: AssertAssignable<S<typeof CFI.ListResourceCustomField>, models.ListResourceCustomField> = true;
const _customFieldCreateIn: AssertAssignable<models.CustomFieldCreate, CFI.CustomFieldCreate> = true;
const _customFieldUpdateIn: AssertAssignable<models.CustomFieldUpdate, CFI.CustomFieldUpdate> = true;
const _checkoutLinkProduct: AssertAssignable<
  S<typeof CL.CheckoutLinkProduct>,
  Omit<models.CheckoutLinkProduct, "benefits"> & { benefits: SdkBenefitPublic[] }
> = true;
// The anchor notes the link's `units` as absent from the reference: the reference wins.
const _waiverCheckoutLink: AssertAssignable<"units", keyof models.CheckoutLink> = true;
const _checkoutLink: AssertAssignable<Omit<S<typeof CL.CheckoutLink>, "products">, Omit<models.CheckoutLink, "products" | "units">> = true;
const _checkoutLinkCreateIn: AssertAssignable<models.CheckoutLinkCreate, CL.CheckoutLinkCreate> = true;
const _checkoutLinkUpdateIn: AssertAssignable<models.CheckoutLinkUpdate, CL.CheckoutLinkUpdate> = true;
const _checkout: AssertAssignable<S<typeof C.Checkout>, SdkCheckout> = true;
type SdkPublicWaived<T> = Omit<T, SdkOnlyCheckoutKeys | "products" | "product"> & {
  products: SdkCheckoutProduct[];
  product: SdkCheckoutProduct | null;
};
const _checkoutOrganization: AssertAssignable<S<typeof OV.CheckoutOrganization>, models.CheckoutOrganization> = true;
const _checkoutPublic: AssertAssignable<S<typeof C.CheckoutPublic>, SdkPublicWaived<models.CheckoutPublic>> = true;
const _checkoutConfirmed: AssertAssignable<S<typeof C.CheckoutPublicConfirmed>, SdkPublicWaived<models.CheckoutPublicConfirmed>> = true;

// Organizations.
const _orgStatus: AssertEqual<O.OrganizationStatus, models.OrganizationStatus> = true;
const _proration: AssertEqual<O.SubscriptionProrationBehavior, models.SubscriptionProrationBehavior> = true;
const _currency: AssertEqual<O.PresentmentCurrency, models.PresentmentCurrency> = true;
const _orgCapabilities: AssertAssignable<S<typeof O.OrganizationCapabilities>, models.OrganizationCapabilities> = true;
const _orgFeatures: AssertAssignable<S<typeof O.OrganizationFeatureSettings>, models.OrganizationFeatureSettings> = true;
const _orgSubscription: AssertAssignable<S<typeof O.OrganizationSubscriptionSettings>, models.OrganizationSubscriptionSettings> = true;
const _orgEmails: AssertAssignable<S<typeof O.OrganizationCustomerEmailSettings>, models.OrganizationCustomerEmailSettings> = true;
const _orgPortal: AssertAssignable<S<typeof O.OrganizationCustomerPortalSettings>, models.OrganizationCustomerPortalSettings> = true;
const _orgDisputes: AssertAssignable<S<typeof O.OrganizationDisputeSettings>, models.OrganizationDisputeSettings> = true;
const _organization: AssertAssignable<S<typeof O.Organization>, models.Organization> = true;
const _orgDetails: AssertAssignable<S<typeof OI.OrganizationDetails>, models.OrganizationDetails> = true;
const _orgCreate: AssertAssignable<S<typeof OI.OrganizationCreate>, models.OrganizationCreate> = true;
const _orgUpdate: AssertAssignable<S<typeof OI.OrganizationUpdate>, models.OrganizationUpdate> = true;
const _orgList: AssertAssignable<S<typeof OI.ListResourceOrganization>, models.ListResourceOrganization> = true;

// Catalog, customers and customer sessions.
const _pagination: AssertAssignable<S<typeof Pagination>, models.Pagination> = true;
const _customerType: AssertEqual<Cu.CustomerType, models.CustomerType> = true;
const _customerIndividual: AssertAssignable<S<typeof Cu.CustomerIndividual>, models.CustomerIndividual> = true;
const _customerTeam: AssertAssignable<S<typeof Cu.CustomerTeam>, models.CustomerTeam> = true;
const _customer: AssertAssignable<S<typeof Cu.Customer>, models.Customer> = true;
const _listCustomers: AssertAssignable<Cu.ListResourceCustomer, models.ListResourceCustomer> = true;
const _customerSession: AssertAssignable<CS.CustomerSession, models.CustomerSession> = true;
const _listDiscounts: AssertAssignable<D.ListResourceDiscount, models.ListResourceDiscount> = true;
const _listBenefits: AssertAssignable<B.ListResourceBenefit, models.ListResourceBenefit> = true;
const _listProducts: AssertAssignable<PI.ListResourceProduct, { items: SdkProduct[]; pagination: models.Pagination }> = true;
// Requests: whatever the SDK sends for these must be accepted by our schemas.
const _customerUpdateIn: AssertAssignable<models.CustomerUpdate, Cu.CustomerUpdate> = true;
const _discountUpdateIn: AssertAssignable<models.DiscountUpdate, D.DiscountUpdate> = true;
const _licenseKeyUpdateIn: AssertAssignable<models.LicenseKeyUpdate, LK.LicenseKeyUpdate> = true;
const _customerUpdateExternalIn: AssertAssignable<models.CustomerUpdateExternalID, Cu.CustomerUpdateExternalId> = true;
const _sessionByIdIn: AssertAssignable<models.CustomerSessionCustomerIDCreate, S<typeof CS.CustomerSessionCustomerIDCreate>> = true;
const _sessionByExternalIn: AssertAssignable<
  models.CustomerSessionCustomerExternalIDCreate,
  S<typeof CS.CustomerSessionCustomerExternalIDCreate>
> = true;
const _licenseKeysIn: AssertAssignable<models.BenefitLicenseKeysCreate, S<typeof BI.BenefitLicenseKeysCreate>> = true;
const _benefitsUpdateIn: AssertAssignable<models.ProductBenefitsUpdate, PI.ProductBenefitsUpdate> = true;
const _customerCreateIn: AssertAssignable<models.CustomerCreate, Cu.CustomerCreate> = true;
const _customBenefitIn: AssertAssignable<models.BenefitCustomCreate, S<typeof BI.BenefitCustomCreate>> = true;
// Members, the portal's team and the session introspection.
const _memberRole: AssertEqual<S<ReturnType<typeof ME.MemberRole>>, models.MemberRole> = true;
const _member: AssertAssignable<ME.Member, models.Member> = true;
const _listMembers: AssertAssignable<S<typeof ME.ListResourceMember>, models.ListResourceMember> = true;
const _memberSort: AssertEqual<NonNullable<ME.MemberListQuery["sorting"]>[number], models.MemberSortProperty> = true;
const _memberCreateIn: AssertAssignable<models.MemberCreateFromCustomer, ME.MemberCreateFromCustomer> = true;
const _memberUpdateIn: AssertAssignable<models.MemberUpdate, ME.MemberUpdate> = true;
const _portalMember: AssertAssignable<CPM.CustomerPortalMember, models.CustomerPortalMember> = true;
const _listPortalMembers: AssertAssignable<S<typeof CPM.ListResourceCustomerPortalMember>, models.ListResourceCustomerPortalMember> = true;
const _portalMemberCreateIn: AssertAssignable<models.CustomerPortalMemberCreate, CPM.CustomerPortalMemberCreate> = true;
const _portalMemberUpdateIn: AssertAssignable<models.CustomerPortalMemberUpdate, CPM.CustomerPortalMemberUpdate> = true;
const _sessionIntrospection: AssertAssignable<CPSS.CustomerCustomerSession, models.CustomerCustomerSession> = true;
const _portalUser: AssertAssignable<CPSS.PortalAuthenticatedUser, models.PortalAuthenticatedUser> = true;
// Not asserted: ProductCreate/ProductUpdate (SDK 1.0.1 adds unit-based and metered-tier prices the
// 2026-04 reference lacks) and DiscountCreate (the SDK leaves the `type` discriminator optional).
// Customers and events.
const _eventSource: AssertEqual<E.EventSource, models.EventSource> = true;
const _eventSort: AssertEqual<E.EventSortProperty, models.EventSortProperty> = true;
const _llm: AssertAssignable<S<typeof E.LLMMetadata>, models.LLMMetadata> = true;
const _costOut: AssertAssignable<S<typeof E.CostMetadataOutput>, models.CostMetadataOutput> = true;
const _eventMetadata: AssertAssignable<S<typeof E.EventMetadataOutput>, models.EventMetadataOutput> = true;
const _userEvent: AssertAssignable<S<typeof E.UserEvent>, models.UserEvent> = true;
const _event: AssertAssignable<S<typeof E.Event>, models.Event> = true;
const _listEvent: AssertAssignable<S<typeof E.ListResourceEvent>, models.ListResourceEvent> = true;
const _ingestResponse: AssertAssignable<S<typeof E.EventsIngestResponse>, models.EventsIngestResponse> = true;
const _eventName: AssertAssignable<E.EventName, models.EventName> = true;
const _listEventNames: AssertAssignable<E.ListResourceEventName, models.ListResourceEventName> = true;
const _eventNamesSort: AssertEqual<NonNullable<E.EventNameListQuery["sorting"]>[number], models.EventNamesSortProperty> = true;
// Inputs the other way round: every body the SDK can send is one we accept.
const _ingest: AssertAssignable<models.EventsIngest, S<typeof E.EventsIngest>> = true;
// Meters.
const _filterOperator: AssertEqual<M.FilterOperator, models.FilterOperator> = true;
const _filterClause: AssertAssignable<M.FilterClause, models.FilterClause> = true;
const _filter: AssertAssignable<S<typeof M.Filter>, models.Filter> = true;
const _meter: AssertAssignable<M.Meter, models.Meter> = true;
const _listMeter: AssertAssignable<M.ListResourceMeter, models.ListResourceMeter> = true;
const _meterQuantities: AssertAssignable<M.MeterQuantities, models.MeterQuantities> = true;
const _timeInterval: AssertEqual<TI.TimeInterval, models.TimeInterval> = true;
// Metrics.
const _metricsLimits: AssertAssignable<MT.MetricsLimits, models.MetricsLimits> = true;
const _metricsResponse: AssertAssignable<MT.MetricsResponse, models.MetricsResponse> = true;
// Customer meters.
const _customerMeter: AssertAssignable<CM.CustomerMeter, models.CustomerMeter> = true;
const _listCustomerMeter: AssertAssignable<S<typeof CM.ListResourceCustomerMeter>, models.ListResourceCustomerMeter> = true;
const _customerCustomerMeter: AssertAssignable<CM.CustomerCustomerMeter, models.CustomerCustomerMeter> = true;
const _listCustomerCustomerMeter: AssertAssignable<
  S<typeof CM.ListResourceCustomerCustomerMeter>,
  models.ListResourceCustomerCustomerMeter
> = true;
const _customerMeterSort: AssertEqual<NonNullable<CM.CustomerMeterListQuery["sorting"]>[number], models.CustomerMeterSortProperty> = true;
const _portalMeterSort: AssertEqual<
  NonNullable<CM.PortalCustomerMeterListQuery["sorting"]>[number],
  models.CustomerCustomerMeterSortProperty
> = true;
const _meterCreditIn: AssertAssignable<models.BenefitMeterCreditCreate, S<typeof BI.BenefitMeterCreditCreate>> = true;
const _aggregationFunction: AssertEqual<(typeof M.AggregationFunctionValues)[number], models.AggregationFunction> = true;
const _meterSort: AssertEqual<NonNullable<MI.MeterListQuery["sorting"]>[number], models.MeterSortProperty> = true;
// Inputs the other way round: every meter body the SDK can send is one we accept.
const _meterCreate: AssertAssignable<models.MeterCreate, MI.MeterCreate> = true;
const _meterUpdate: AssertAssignable<models.MeterUpdate, MI.MeterUpdate> = true;
// Webhooks. SDK 1.0.1 adds `api_version` (and `uses_standard_webhook_signature`) that the
// reference does not have; the reference wins, and the SDK lists more event types than it.
type SdkOnlyWebhookEndpointKeys = "api_version" | "uses_standard_webhook_signature";
const _waiverWebhookEndpoint: AssertAssignable<SdkOnlyWebhookEndpointKeys, keyof models.WebhookEndpoint> = true;
const _waiverWebhookEvent: AssertAssignable<"api_version", keyof models.WebhookEvent> = true;
type SdkWebhookEndpoint = Omit<models.WebhookEndpoint, SdkOnlyWebhookEndpointKeys>;
type SdkWebhookEvent = Omit<models.WebhookEvent, "api_version">;
type SdkWebhookDelivery = Omit<models.WebhookDelivery, "webhook_event"> & { webhook_event: SdkWebhookEvent };
const _webhookFormat: AssertEqual<W.WebhookFormat, models.WebhookFormat> = true;
const _webhookEventType: AssertAssignable<W.WebhookEventType, models.WebhookEventType> = true;
const _webhookEndpoint: AssertAssignable<S<typeof W.WebhookEndpoint>, SdkWebhookEndpoint> = true;
const _webhookEndpointCreate: AssertAssignable<S<typeof W.WebhookEndpointCreate>, models.WebhookEndpointCreate> = true;
const _webhookEndpointUpdate: AssertAssignable<S<typeof W.WebhookEndpointUpdate>, models.WebhookEndpointUpdate> = true;
const _webhookEvent: AssertAssignable<S<typeof W.WebhookEvent>, SdkWebhookEvent> = true;
const _webhookDelivery: AssertAssignable<S<typeof W.WebhookDelivery>, SdkWebhookDelivery> = true;
const _webhookEndpoints: AssertAssignable<
  S<typeof W.ListResourceWebhookEndpoint>,
  { items: SdkWebhookEndpoint[]; pagination: models.Pagination }
> = true;
const _webhookDeliveries: AssertAssignable<
  S<typeof W.ListResourceWebhookDelivery>,
  { items: SdkWebhookDelivery[]; pagination: models.Pagination }
> = true;
// License keys.
const _licenseKeyStatus: AssertEqual<LK.LicenseKeyStatus, models.LicenseKeyStatus> = true;
const _licenseKeyCustomer: AssertAssignable<S<typeof LK.LicenseKeyCustomer>, models.LicenseKeyCustomer> = true;
const _licenseKeyRead: AssertAssignable<LK.LicenseKeyRead, models.LicenseKeyRead> = true;
const _licenseKeyActivation: AssertAssignable<LK.LicenseKeyActivationBase, models.LicenseKeyActivationBase> = true;
const _licenseKeyActivationRead: AssertAssignable<LK.LicenseKeyActivationRead, models.LicenseKeyActivationRead> = true;
// The SDK narrows a validated key's status to "granted" (only granted keys validate); the reference keeps the enum.
const _waiverValidated: AssertEqual<models.ValidatedLicenseKey["status"], "granted"> = true;
type SdkValidatedLicenseKey = Omit<models.ValidatedLicenseKey, "status"> & { status: models.LicenseKeyStatus };
const _validatedLicenseKey: AssertAssignable<LK.ValidatedLicenseKey, SdkValidatedLicenseKey> = true;
const _licenseKeyWithActivations: AssertAssignable<LK.LicenseKeyWithActivations, models.LicenseKeyWithActivations> = true;
const _listLicenseKeys: AssertAssignable<LK.ListResourceLicenseKeyRead, models.ListResourceLicenseKeyRead> = true;
const _licenseKeyActivateIn: AssertAssignable<models.LicenseKeyActivate, LK.LicenseKeyActivate> = true;
const _licenseKeyValidateIn: AssertAssignable<models.LicenseKeyValidate, LK.LicenseKeyValidate> = true;
const _licenseKeyDeactivateIn: AssertAssignable<models.LicenseKeyDeactivate, LK.LicenseKeyDeactivate> = true;
// Customer portal.
const _portalOAuth: AssertAssignable<S<typeof CPC.CustomerPortalOAuthAccount>, models.CustomerPortalOAuthAccount> = true;
const _portalCustomer: AssertAssignable<CPC.CustomerPortalCustomer, models.CustomerPortalCustomer> = true;
const _portalCustomerUpdateIn: AssertAssignable<models.CustomerPortalCustomerUpdate, CPC.CustomerPortalCustomerUpdate> = true;
// Orders. SDK 1.0.1 adds `units` to the order and its subscription and period timestamps to the
// items; the reference has none of them.
const _waiverOrder: AssertAssignable<"units", keyof models.Order> = true;
const _waiverOrderSubscription: AssertAssignable<"units", keyof models.OrderSubscription> = true;
type SdkOnlyOrderItemKeys = "start_timestamp" | "end_timestamp";
const _waiverOrderItem: AssertAssignable<SdkOnlyOrderItemKeys, keyof models.OrderItemSchema> = true;
type SdkOrderSubscription = Omit<models.OrderSubscription, "units">;
type SdkOrderItem = Omit<models.OrderItemSchema, SdkOnlyOrderItemKeys>;
type SdkOrder = Omit<models.Order, "units" | "subscription" | "items"> & {
  subscription: SdkOrderSubscription | null;
  items: SdkOrderItem[];
};
const _orderStatus: AssertEqual<OR.OrderStatus, models.OrderStatus> = true;
const _orderItem: AssertAssignable<OR.OrderItem, SdkOrderItem> = true;
const _orderCustomer: AssertAssignable<S<typeof OR.OrderCustomer>, models.OrderCustomer> = true;
const _orderProduct: AssertAssignable<S<typeof OR.OrderProduct>, models.OrderProduct> = true;
const _orderSubscription: AssertAssignable<S<typeof OR.OrderSubscription>, SdkOrderSubscription> = true;
const _order: AssertAssignable<OR.Order, SdkOrder> = true;
const _listOrders: AssertAssignable<OR.ListResourceOrder, { items: SdkOrder[]; pagination: models.Pagination }> = true;
// Subscriptions. The SDK's subscription and its pending update add `units` (as orders do), its product `is_deletable`.
const _waiverSubscription: AssertAssignable<"units", keyof models.Subscription> = true;
const _waiverPendingUpdate: AssertAssignable<"units", keyof models.PendingSubscriptionUpdate> = true;
type SdkSubscription = Omit<models.Subscription, "units" | "product" | "pending_update"> & {
  product: SdkProduct;
  pending_update: Omit<models.PendingSubscriptionUpdate, "units"> | null;
};
const _subscription: AssertAssignable<SU.Subscription, SdkSubscription> = true;
const _subscriptionMeter: AssertAssignable<SU.SubscriptionMeter, models.SubscriptionMeter> = true;
const _listSubscriptions: AssertAssignable<SU.ListResourceSubscription, { items: SdkSubscription[]; pagination: models.Pagination }> = true;
const _subscriptionSort: AssertEqual<NonNullable<SU.SubscriptionListQuery["sorting"]>[number], models.SubscriptionSortProperty> = true;
const _subscriptionStatus: AssertEqual<S<typeof OR.SubscriptionStatus>, models.SubscriptionStatus> = true;
const _subscriptionUpdateIn: AssertAssignable<models.SubscriptionUpdate, SI.SubscriptionUpdate> = true;
const _subscriptionCreateIn: AssertAssignable<
  models.SubscriptionCreateCustomer | models.SubscriptionCreateExternalCustomer,
  SI.SubscriptionCreate
> = true;
type SdkCustomerSubscription = Omit<models.CustomerSubscription, "units" | "pending_update" | "product"> & {
  pending_update: Omit<models.PendingSubscriptionUpdate, "units"> | null;
  product: SdkCustomerOrderProduct;
};
const _customerSubscription: AssertAssignable<CPS.CustomerSubscription, SdkCustomerSubscription> = true;
// The SDK's portal update adds a `units` member, as its other shapes do.
const _customerSubscriptionUpdateIn: AssertAssignable<
  Exclude<models.CustomerSubscriptionUpdate, models.CustomerSubscriptionUpdateUnits>,
  CPS.CustomerSubscriptionUpdate
> = true;
const _customerSubscriptionSort: AssertEqual<
  NonNullable<CPS.CustomerSubscriptionListQuery["sorting"]>[number],
  models.CustomerSubscriptionSortProperty
> = true;
const _orderUpdateIn: AssertAssignable<models.OrderUpdate, OR.OrderUpdate> = true;
const _orderInvoice: AssertAssignable<S<typeof OR.OrderInvoice>, models.OrderInvoice> = true;
// Customer state. The SDK's state subscription adds `seats` and `units`, which the reference lacks (the reference wins),
// and types its `status` with the license keys' `Status` ("granted" | "disabled", a name clash in its generator) where
// the reference says "active" | "trialing" (checked against the reference below).
type SdkOnlyStateSubscriptionKeys = "seats" | "units";
const _waiverStateSubscription: AssertAssignable<SdkOnlyStateSubscriptionKeys, keyof models.CustomerStateSubscription> = true;
const _waiverStateStatus: AssertEqual<models.CustomerStateSubscription["status"], "granted" | "disabled"> = true;
type SdkCustomerStateSubscription = Omit<models.CustomerStateSubscription, SdkOnlyStateSubscriptionKeys | "status"> & {
  status: "active" | "trialing";
};
type SdkCustomerState = DistributiveOmit<models.CustomerState, "active_subscriptions"> & {
  active_subscriptions: SdkCustomerStateSubscription[];
};
const _customerStateSubscription: AssertAssignable<CST.CustomerStateSubscription, SdkCustomerStateSubscription> = true;
const _customerStateBenefitGrant: AssertAssignable<CST.CustomerStateBenefitGrant, models.CustomerStateBenefitGrant> = true;
const _customerStateMeter: AssertAssignable<S<typeof CST.CustomerStateMeter>, models.CustomerStateMeter> = true;
const _customerState: AssertAssignable<CST.CustomerState, SdkCustomerState> = true;

// Benefit grants: the organization's list, the webhook payloads and the portal's views and update.
const _benefitGrant: AssertAssignable<S<typeof BG.BenefitGrant>, models.BenefitGrant> = true;
const _benefitGrantList: AssertAssignable<
  S<typeof BG.ListResourceBenefitGrant>,
  { items: models.BenefitGrant[]; pagination: models.Pagination }
> = true;
const _benefitGrantWebhook: AssertAssignable<S<typeof BG.BenefitGrantWebhook>, models.BenefitGrantWebhook> = true;
const _benefitGrantSort: AssertEqual<NonNullable<BG.BenefitGrantListQuery["sorting"]>[number], models.BenefitGrantSortProperty> = true;
const _customerBenefitGrant: AssertAssignable<CPBG.CustomerBenefitGrant, models.CustomerBenefitGrant> = true;
const _customerBenefitGrantList: AssertAssignable<
  S<typeof CPBG.ListResourceCustomerBenefitGrant>,
  { items: models.CustomerBenefitGrant[]; pagination: models.Pagination }
> = true;
const _customerBenefitGrantUpdateIn: AssertAssignable<models.CustomerBenefitGrantUpdate, CPBG.CustomerBenefitGrantUpdate> = true;
const _customerBenefitGrantSort: AssertEqual<
  NonNullable<CPBG.CustomerBenefitGrantListQuery["sorting"]>[number],
  models.CustomerBenefitGrantSortProperty
> = true;

// Customer-portal orders: the same SDK-only keys as the organization's orders (waived above).
// Public benefits follow the benefit waiver.
const _waiverCustomerOrder: AssertAssignable<"units", keyof models.CustomerOrder> = true;
const _waiverCustomerOrderSubscription: AssertAssignable<"units", keyof models.CustomerOrderSubscription> = true;
type SdkCustomerOrderProduct = Omit<models.CustomerOrderProduct, "benefits"> & { benefits: SdkBenefitPublic[] };
type SdkCustomerOrder = Omit<models.CustomerOrder, "units" | "product" | "subscription" | "items"> & {
  items: SdkOrderItem[];
  product: SdkCustomerOrderProduct | null;
  subscription: Omit<models.CustomerOrderSubscription, "units"> | null;
};
const _customerOrgFeatures: AssertAssignable<
  S<typeof OV.CustomerOrganizationFeatureSettings>,
  models.CustomerOrganizationFeatureSettings
> = true;
const _customerOrganization: AssertAssignable<OV.CustomerOrganization, models.CustomerOrganization> = true;
const _customerOrderProduct: AssertAssignable<CPO.CustomerOrderProduct, SdkCustomerOrderProduct> = true;
const _customerOrder: AssertAssignable<CPO.CustomerOrder, SdkCustomerOrder> = true;
const _listCustomerOrders: AssertAssignable<CPO.ListResourceCustomerOrder, { items: SdkCustomerOrder[]; pagination: models.Pagination }> =
  true;
const _customerOrderSort: AssertEqual<NonNullable<CPO.CustomerOrderListQuery["sorting"]>[number], models.CustomerOrderSortProperty> = true;
const _customerOrderUpdateIn: AssertAssignable<models.CustomerOrderUpdate, CPO.CustomerOrderUpdate> = true;
// Saved payment methods. The SDK adds Korean cards (`kr_card`), which the reference does not have
// and this service never saves, to both unions.
const _pmCardMetadata: AssertAssignable<S<typeof PM.PaymentMethodCardMetadata>, models.PaymentMethodCardMetadata> = true;
const _pmCard: AssertAssignable<S<typeof PM.PaymentMethodCard>, models.PaymentMethodCard> = true;
const _pmGeneric: AssertAssignable<S<typeof PM.PaymentMethodGeneric>, models.PaymentMethodGeneric> = true;
const _customerPaymentMethod: AssertAssignable<PM.CustomerPaymentMethod, models.CustomerPaymentMethod> = true;
const _listCustomerPaymentMethods: AssertAssignable<PM.ListResourceCustomerPaymentMethod, models.ListResourceCustomerPaymentMethod> = true;
const _customerPmCard: AssertAssignable<S<typeof PM.CustomerPaymentMethodCard>, models.CustomerPaymentMethodCard> = true;
const _customerPmGeneric: AssertAssignable<S<typeof PM.CustomerPaymentMethodGeneric>, models.CustomerPaymentMethodGeneric> = true;
const _paymentMethod: AssertAssignable<PM.PaymentMethod, models.PaymentMethod> = true;
const _listPaymentMethods: AssertAssignable<PM.ListResourcePaymentMethod, models.ListResourcePaymentMethod> = true;
const _pmCreateResponse: AssertAssignable<PM.CustomerPaymentMethodCreateResponse, models.CustomerPaymentMethodCreateResponse> = true;
const _pmCreateIn: AssertAssignable<models.CustomerPaymentMethodCreate, PM.CustomerPaymentMethodCreate> = true;
const _pmConfirmIn: AssertAssignable<models.CustomerPaymentMethodConfirm, PM.CustomerPaymentMethodConfirm> = true;
const _orderPaymentStatus: AssertAssignable<CPO.CustomerOrderPaymentStatus, models.CustomerOrderPaymentStatus> = true;
const _orderPaymentConfirmation: AssertAssignable<CPO.CustomerOrderPaymentConfirmation, models.CustomerOrderPaymentConfirmation> = true;
const _orderConfirmPaymentIn: AssertAssignable<models.CustomerOrderConfirmPayment, CPO.CustomerOrderConfirmPayment> = true;

// Refunds and payments.
const _refund: AssertAssignable<RF.Refund, models.Refund> = true;
const _listRefunds: AssertAssignable<RF.ListResourceRefund, models.ListResourceRefund> = true;
const _dispute: AssertAssignable<DS.Dispute, models.Dispute> = true;
const _listDisputes: AssertAssignable<DS.ListResourceDispute, models.ListResourceDispute> = true;
const _disputeStatus: AssertEqual<S<typeof DS.DisputeStatus>, models.DisputeStatus> = true;
const _refundStatus: AssertEqual<S<typeof RF.RefundStatus>, models.RefundStatus> = true;
const _refundReason: AssertEqual<S<typeof RF.RefundReason>, models.RefundReason> = true;
const _refundCreateIn: AssertAssignable<models.RefundCreate, RI.RefundCreate> = true;
const _refundSort: AssertEqual<NonNullable<RI.RefundListQuery["sorting"]>[number], models.RefundSortProperty> = true;
const _cardPayment: AssertAssignable<S<typeof PA.CardPayment>, models.CardPayment> = true;
const _genericPayment: AssertAssignable<S<typeof PA.GenericPayment>, models.GenericPayment> = true;
const _payment: AssertAssignable<PA.Payment, models.Payment> = true;
const _listPayments: AssertAssignable<PA.ListResourcePayment, models.ListResourcePayment> = true;
const _paymentStatus: AssertEqual<S<typeof PA.PaymentStatus>, models.PaymentStatus> = true;
const _paymentTrigger: AssertEqual<S<typeof PA.PaymentTrigger>, models.PaymentTrigger> = true;
const _paymentSort: AssertEqual<NonNullable<PA.PaymentListQuery["sorting"]>[number], models.PaymentSortProperty> = true;

// ---------------------------------------------------------------------------------------------
// Runtime contract against the reference OpenAPI document, when it is available next to the
// project: same property keys, same required keys, same nullability and JSON types per property,
// same enum values and same union members.
// ---------------------------------------------------------------------------------------------

interface JsonSchema {
  $ref?: string;
  type?: string;
  title?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
}

interface OpenApiDocument {
  components: { schemas: Record<string, JsonSchema> };
}

let cachedReference: OpenApiDocument | undefined;
const reference = (): OpenApiDocument => (cachedReference ??= JSON.parse(readFileSync(fullReferencePath, "utf8")) as OpenApiDocument);

const resolveRef = (schema: JsonSchema): JsonSchema => {
  if (schema.$ref === undefined) return schema;
  const name = schema.$ref.replace("#/components/schemas/", "");
  const target = reference().components.schemas[name];
  if (target === undefined) throw new Error(`unresolvable reference ${schema.$ref}`);
  return target;
};

/** JSON types a value may take at the top level of a schema (ignoring constraints). */
const jsonTypes = (input: JsonSchema): string[] => {
  const schema = resolveRef(input);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches !== undefined) return [...new Set(branches.flatMap(jsonTypes))].sort();
  if (schema.type !== undefined) return [schema.type];
  if (schema.enum !== undefined) return ["string"];
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) return ["object"];
  return ["unknown"];
};

const asJson = (schema: TSchema): JsonSchema => schema;
const sorted = (values: readonly unknown[] | undefined): unknown[] => [...(values ?? [])].map(String).sort();

/** Our schemas, by the name of the reference schema they mirror. */
const mirrored: Record<string, TSchema> = {
  Address,
  TrialInterval: TrialInterval(),
  RecurringInterval: RecurringInterval(),
  TaxBehaviorOption: TaxBehaviorOption(),
  ProductPriceSource: P.ProductPriceSource,
  SeatTierType: P.SeatTierType,
  MeterUnit: P.MeterUnit,
  ProductVisibility: P.ProductVisibility,
  ProductPriceFixed: P.ProductPriceFixed,
  ProductPriceCustom: P.ProductPriceCustom,
  ProductPriceSeatTier: P.ProductPriceSeatTier,
  "ProductPriceSeatTiers-Output": P.ProductPriceSeatTiersOutput,
  ProductPriceSeatBased: P.ProductPriceSeatBased,
  ProductPriceMeter: P.ProductPriceMeter,
  ProductPriceMeteredUnit: P.ProductPriceMeteredUnit,
  ProductPrice: P.ProductPrice,
  LegacyRecurringProductPriceFixed: P.LegacyRecurringProductPriceFixed,
  LegacyRecurringProductPriceCustom: P.LegacyRecurringProductPriceCustom,
  LegacyRecurringProductPrice: P.LegacyRecurringProductPrice,
  BenefitType: B.BenefitType,
  BenefitVisibility: B.BenefitVisibility,
  BenefitPublic: B.BenefitPublic,
  BenefitCustomProperties: B.BenefitCustomProperties,
  BenefitCustom: B.BenefitCustom,
  BenefitDiscordProperties: B.BenefitDiscordProperties,
  BenefitDiscord: B.BenefitDiscord,
  BenefitGitHubRepositoryProperties: B.BenefitGitHubRepositoryProperties,
  BenefitGitHubRepository: B.BenefitGitHubRepository,
  BenefitDownloadablesProperties: B.BenefitDownloadablesProperties,
  BenefitDownloadables: B.BenefitDownloadables,
  BenefitLicenseKeyExpirationProperties: B.BenefitLicenseKeyExpirationProperties,
  BenefitLicenseKeyActivationProperties: B.BenefitLicenseKeyActivationProperties,
  BenefitLicenseKeysProperties: B.BenefitLicenseKeysProperties,
  BenefitLicenseKeys: B.BenefitLicenseKeys,
  BenefitMeterCreditProperties: B.BenefitMeterCreditProperties,
  BenefitMeterCredit: B.BenefitMeterCredit,
  BenefitFeatureFlagProperties: B.BenefitFeatureFlagProperties,
  BenefitFeatureFlag: B.BenefitFeatureFlag,
  BenefitSlackSharedChannelProperties: B.BenefitSlackSharedChannelProperties,
  BenefitSlackSharedChannel: B.BenefitSlackSharedChannel,
  Benefit: B.Benefit,
  ProductMediaFileRead: P.ProductMediaFileRead,
  CheckoutProduct: P.CheckoutProduct,
  Product: P.Product,
  DiscountDuration: D.DiscountDuration,
  DiscountType: D.DiscountType,
  CheckoutDiscountFixedOnceForeverDuration: D.CheckoutDiscountFixedOnceForeverDuration,
  CheckoutDiscountFixedRepeatDuration: D.CheckoutDiscountFixedRepeatDuration,
  CheckoutDiscountPercentageOnceForeverDuration: D.CheckoutDiscountPercentageOnceForeverDuration,
  CheckoutDiscountPercentageRepeatDuration: D.CheckoutDiscountPercentageRepeatDuration,
  DiscountProduct: D.DiscountProduct,
  DiscountFixedOnceForeverDuration: D.DiscountFixedOnceForeverDuration,
  DiscountFixedRepeatDuration: D.DiscountFixedRepeatDuration,
  DiscountPercentageOnceForeverDuration: D.DiscountPercentageOnceForeverDuration,
  DiscountPercentageRepeatDuration: D.DiscountPercentageRepeatDuration,
  Discount: D.Discount,
  CheckoutStatus: C.CheckoutStatus,
  TaxBehavior: C.TaxBehavior,
  PaymentProcessor: PM.PaymentProcessor,
  BillingAddressFieldMode: C.BillingAddressFieldMode,
  CheckoutBillingAddressFields: C.CheckoutBillingAddressFields,
  CustomFieldTextProperties: CF.CustomFieldTextProperties,
  CustomFieldNumberProperties: CF.CustomFieldNumberProperties,
  CustomFieldDateProperties: CF.CustomFieldDateProperties,
  CustomFieldCheckboxProperties: CF.CustomFieldCheckboxProperties,
  CustomFieldSelectOption: CF.CustomFieldSelectOption,
  CustomFieldSelectProperties: CF.CustomFieldSelectProperties,
  CustomFieldText: CF.CustomFieldText,
  CustomFieldNumber: CF.CustomFieldNumber,
  CustomFieldDate: CF.CustomFieldDate,
  CustomFieldCheckbox: CF.CustomFieldCheckbox,
  CustomFieldSelect: CF.CustomFieldSelect,
  CustomField: CF.CustomField,
  AttachedCustomField: CF.AttachedCustomField,
  CustomFieldType: CF.CustomFieldType,
  CheckoutLink: CL.CheckoutLink,
  CheckoutLinkProduct: CL.CheckoutLinkProduct,
  Checkout: C.Checkout,
  CheckoutOrganization: OV.CheckoutOrganization,
  CheckoutPublic: C.CheckoutPublic,
  CheckoutPublicConfirmed: C.CheckoutPublicConfirmed,
  CheckoutProductsCreate: CI.CheckoutCreate,
  CheckoutUpdate: CI.CheckoutUpdate,
  CheckoutUpdatePublic: CI.CheckoutUpdatePublic,
  CheckoutConfirmStripe: CI.CheckoutConfirm,
  OrganizationStatus: O.OrganizationStatus,
  SubscriptionProrationBehavior: O.SubscriptionProrationBehavior,
  OrganizationSocialPlatforms: O.OrganizationSocialPlatforms,
  PresentmentCurrency: O.PresentmentCurrency,
  OrganizationSocialLink: O.OrganizationSocialLink,
  OrganizationCapabilities: O.OrganizationCapabilities,
  OrganizationFeatureSettings: O.OrganizationFeatureSettings,
  OrganizationFeatureSettingsUpdate: O.OrganizationFeatureSettingsUpdate,
  OrganizationSubscriptionSettings: O.OrganizationSubscriptionSettings,
  OrganizationCustomerEmailSettings: O.OrganizationCustomerEmailSettings,
  CustomerPortalUsageSettings: O.CustomerPortalUsageSettings,
  CustomerPortalSubscriptionSettings: O.CustomerPortalSubscriptionSettings,
  CustomerPortalCustomerSettings: O.CustomerPortalCustomerSettings,
  OrganizationCustomerPortalSettings: O.OrganizationCustomerPortalSettings,
  OrganizationDisputeSettings: O.OrganizationDisputeSettings,
  Organization: O.Organization,
  OrganizationDetails: OI.OrganizationDetails,
  OrganizationIndividualLegalEntitySchema: OI.OrganizationIndividualLegalEntitySchema,
  OrganizationCompanyLegalEntitySchema: OI.OrganizationCompanyLegalEntitySchema,
  OrganizationCreate: OI.OrganizationCreate,
  OrganizationUpdate: OI.OrganizationUpdate,
  OrganizationDisputeSettingsUpdate: OI.OrganizationDisputeSettingsUpdate,
  Pagination,
  TaxIDFormat: TaxIdFormat,
  CustomerType: Cu.CustomerType,
  CustomerIndividual: Cu.CustomerIndividual,
  CustomerTeam: Cu.CustomerTeam,
  Customer: Cu.Customer,
  CustomerIndividualCreate: Cu.CustomerIndividualCreate,
  CustomerTeamCreate: Cu.CustomerTeamCreate,
  CustomerCreate: Cu.CustomerCreate,
  CustomerUpdate: Cu.CustomerUpdate,
  CustomerUpdateExternalID: Cu.CustomerUpdateExternalId,
  CustomerSessionCustomerIDCreate: CS.CustomerSessionCustomerIDCreate,
  CustomerSessionCustomerExternalIDCreate: CS.CustomerSessionCustomerExternalIDCreate,
  CustomerSession: CS.CustomerSession,
  MemberRole: ME.MemberRole(),
  Member: ME.Member,
  MemberCreateFromCustomer: ME.MemberCreateFromCustomer,
  MemberUpdate: ME.MemberUpdate,
  CustomerPortalMember: CPM.CustomerPortalMember,
  CustomerPortalMemberCreate: CPM.CustomerPortalMemberCreate,
  CustomerPortalMemberUpdate: CPM.CustomerPortalMemberUpdate,
  CustomerCustomerSession: CPSS.CustomerCustomerSession,
  PortalAuthenticatedUser: CPSS.PortalAuthenticatedUser,
  ProductPriceFixedCreate: PI.ProductPriceFixedCreate,
  ProductPriceCustomCreate: PI.ProductPriceCustomCreate,
  ProductPriceSeatBasedCreate: PI.ProductPriceSeatBasedCreate,
  ProductPriceMeteredUnitCreate: PI.ProductPriceMeteredUnitCreate,
  ExistingProductPrice: PI.ExistingProductPrice,
  ProductCreateRecurring: PI.ProductCreateRecurring,
  ProductCreateOneTime: PI.ProductCreateOneTime,
  ProductCreate: PI.ProductCreate,
  ProductUpdate: PI.ProductUpdate,
  BenefitLicenseKeysCreateProperties: BI.BenefitLicenseKeysCreateProperties,
  BenefitLicenseKeysCreate: BI.BenefitLicenseKeysCreate,
  BenefitCustomCreate: BI.BenefitCustomCreate,
  EventSource: E.EventSource,
  EventSortProperty: E.EventSortProperty,
  LLMMetadata: E.LLMMetadata,
  "CostMetadata-Output": E.CostMetadataOutput,
  EventMetadataInput: E.EventMetadataInput,
  EventMetadataOutput: E.EventMetadataOutput,
  EventCreateCustomer: E.EventCreateCustomer,
  EventCreateExternalCustomer: E.EventCreateExternalCustomer,
  EventsIngest: E.EventsIngest,
  EventsIngestResponse: E.EventsIngestResponse,
  UserEvent: E.UserEvent,
  EventName: E.EventName,
  Meter: M.Meter,
  MeterCreate: MI.MeterCreate,
  MeterUpdate: MI.MeterUpdate,
  MeterQuantities: M.MeterQuantities,
  MeterQuantity: M.MeterQuantity,
  CustomerMeter: CM.CustomerMeter,
  CustomerCustomerMeter: CM.CustomerCustomerMeter,
  CustomerCustomerMeterMeter: CM.CustomerCustomerMeterMeter,
  BenefitMeterCreditCreate: BI.BenefitMeterCreditCreate,
  Filter: M.Filter,
  FilterClause: M.FilterClause,
  FilterOperator: M.FilterOperator,
  FilterConjunction: M.FilterConjunction,
  CountAggregation: M.CountAggregation,
  PropertyAggregation: M.PropertyAggregation,
  UniqueAggregation: M.UniqueAggregation,
  WebhookFormat: W.WebhookFormat,
  WebhookEventType: W.WebhookEventType,
  WebhookEndpoint: W.WebhookEndpoint,
  WebhookEndpointCreate: W.WebhookEndpointCreate,
  WebhookEndpointUpdate: W.WebhookEndpointUpdate,
  WebhookEvent: W.WebhookEvent,
  WebhookDelivery: W.WebhookDelivery,
  LicenseKeyStatus: LK.LicenseKeyStatus,
  LicenseKeyCustomer: LK.LicenseKeyCustomer,
  LicenseKeyRead: LK.LicenseKeyRead,
  LicenseKeyActivationBase: LK.LicenseKeyActivationBase,
  LicenseKeyActivationRead: LK.LicenseKeyActivationRead,
  ValidatedLicenseKey: LK.ValidatedLicenseKey,
  LicenseKeyWithActivations: LK.LicenseKeyWithActivations,
  LicenseKeyActivate: LK.LicenseKeyActivate,
  LicenseKeyValidate: LK.LicenseKeyValidate,
  LicenseKeyDeactivate: LK.LicenseKeyDeactivate,
  CustomerPortalOAuthAccount: CPC.CustomerPortalOAuthAccount,
  CustomerPortalCustomer: CPC.CustomerPortalCustomer,
  CustomerPortalCustomerUpdate: CPC.CustomerPortalCustomerUpdate,
  OrderStatus: OR.OrderStatus,
  OrderBillingReason: OR.OrderBillingReason,
  ProductBillingType: OR.ProductBillingType,
  OrderItemSchema: OR.OrderItem,
  OrderCustomer: OR.OrderCustomer,
  OrderProduct: OR.OrderProduct,
  OrderSubscription: OR.OrderSubscription,
  CustomerOrderSubscription: OR.CustomerOrderSubscription,
  Order: OR.Order,
  OrderUpdate: OR.OrderUpdate,
  OrderInvoice: OR.OrderInvoice,
  OrderReceipt: OR.OrderReceipt,
  DiscountFixedOnceForeverDurationBase: D.DiscountFixedOnceForeverDurationBase,
  DiscountPercentageRepeatDurationBase: D.DiscountPercentageRepeatDurationBase,
  CustomerOrder: CPO.CustomerOrder,
  CustomerOrderProduct: CPO.CustomerOrderProduct,
  CustomerOrganization: OV.CustomerOrganization,
  CustomerOrganizationFeatureSettings: OV.CustomerOrganizationFeatureSettings,
  CustomerOrderUpdate: CPO.CustomerOrderUpdate,
  SubscriptionStatus: OR.SubscriptionStatus,
  CustomerCancellationReason: OR.CustomerCancellationReason,
  PendingSubscriptionUpdate: SU.PendingSubscriptionUpdate,
  BenefitGrantDiscordProperties: BG.BenefitGrantDiscordProperties,
  BenefitGrantGitHubRepositoryProperties: BG.BenefitGrantGitHubRepositoryProperties,
  BenefitGrantDownloadablesProperties: BG.BenefitGrantDownloadablesProperties,
  BenefitGrantLicenseKeysProperties: BG.BenefitGrantLicenseKeysProperties,
  BenefitGrantCustomProperties: BG.BenefitGrantCustomProperties,
  BenefitGrantFeatureFlagProperties: BG.BenefitGrantFeatureFlagProperties,
  BenefitGrantSlackSharedChannelProperties: BG.BenefitGrantSlackSharedChannelProperties,
  BenefitGrantMeterCreditProperties: BG.BenefitGrantMeterCreditProperties,
  BenefitGrantError: BG.BenefitGrantError,
  // BenefitGrant itself is not mirrored: it leaves out the optional `member` (no grant is made for a
  // member yet); the SDK's model type and the list's responses check it instead.
  BenefitSubscriberOrganization: CPBG.BenefitSubscriberOrganization,
  CustomerBenefitGrant: CPBG.CustomerBenefitGrant,
  CustomerBenefitGrantUpdate: CPBG.CustomerBenefitGrantUpdate,
  CustomerStateSubscriptionMeter: CST.CustomerStateSubscriptionMeter,
  CustomerStateSubscription: CST.CustomerStateSubscription,
  CustomerStateBenefitGrant: CST.CustomerStateBenefitGrant,
  CustomerStateMeter: CST.CustomerStateMeter,
  CustomerStateIndividual: CST.CustomerStateIndividual,
  CustomerStateTeam: CST.CustomerStateTeam,
  CustomerState: CST.CustomerState,
  PaymentMethodCardMetadata: PM.PaymentMethodCardMetadata,
  PaymentMethodCard: PM.PaymentMethodCard,
  PaymentMethodGeneric: PM.PaymentMethodGeneric,
  CustomerPaymentMethod: PM.CustomerPaymentMethod,
  CustomerPaymentMethodCard: PM.CustomerPaymentMethodCard,
  CustomerPaymentMethodGeneric: PM.CustomerPaymentMethodGeneric,
  PaymentMethod: PM.PaymentMethod,
  CustomerPaymentMethodCreate: PM.CustomerPaymentMethodCreate,
  CustomerPaymentMethodConfirm: PM.CustomerPaymentMethodConfirm,
  CustomerPaymentMethodCreateSucceededResponse: PM.CustomerPaymentMethodCreateSucceededResponse,
  CustomerPaymentMethodCreateRequiresActionResponse: PM.CustomerPaymentMethodCreateRequiresActionResponse,
  CustomerPaymentMethodCreateResponse: PM.CustomerPaymentMethodCreateResponse,
  CustomerOrderPaymentStatus: CPO.CustomerOrderPaymentStatus,
  CustomerOrderConfirmPayment: CPO.CustomerOrderConfirmPayment,
  CustomerOrderPaymentConfirmation: CPO.CustomerOrderPaymentConfirmation,
  RefundStatus: RF.RefundStatus,
  RefundReason: RF.RefundReason,
  DisputeStatus: DS.DisputeStatus,
  DisputeCustomer: DS.DisputeCustomer,
  Dispute: DS.Dispute,
  RefundDispute: RF.RefundDispute,
  Refund: RF.Refund,
  RefundCreate: RI.RefundCreate,
  PaymentStatus: PA.PaymentStatus,
  PaymentTrigger: PA.PaymentTrigger,
  CardPaymentMetadata: PA.CardPaymentMetadata,
  CardPayment: PA.CardPayment,
  GenericPayment: PA.GenericPayment,
  Payment: PA.Payment,
};

/** Schemas whose title is not their reference name (kit primitives, pydantic's "-Output" split). */
const expectedTitle = (name: string): string | undefined => (name === "RecurringInterval" ? undefined : name.replace(/-Output$/, ""));

/**
 * Optional properties this server adds to a reference schema (extensions documented in the README and
 * docs/decisions.md): left out of the key comparison, and never required, so clients of the
 * reference ignore them.
 */
const EXTENSION_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  BenefitLicenseKeysProperties: ["license_file_ttl_days", "heartbeat"],
  BenefitLicenseKeysCreateProperties: ["license_file_ttl_days", "heartbeat"],
  WebhookDelivery: ["duration_ms"],
};

describe("schemas mirror the reference OpenAPI document", () => {
  it.for(Object.keys(mirrored))("%s", (name, { skip }) => {
    skip(!referenceAvailable, REFERENCE_MISSING);
    const ours = asJson(mirrored[name] as TSchema);
    const theirs = reference().components.schemas[name];
    expect(theirs, `${name} is missing from the reference`).toBeDefined();
    if (theirs === undefined) return;

    expect(ours.title, `${name}: title`).toBe(expectedTitle(name));

    if (theirs.enum !== undefined) {
      expect(sorted(ours.enum), `${name}: enum values`).toEqual(sorted(theirs.enum));
      return;
    }

    const theirBranches = theirs.oneOf ?? theirs.anyOf;
    if (theirBranches !== undefined) {
      const theirMembers = theirBranches.map((branch) => resolveRef(branch).title);
      const ourMembers = (ours.anyOf ?? []).map((branch) => branch.title);
      expect(sorted(ourMembers), `${name}: union members`).toEqual(sorted(theirMembers));
      return;
    }

    const ourProperties = ours.properties ?? {};
    const theirProperties = theirs.properties ?? {};
    const extensions = EXTENSION_PROPERTIES[name] ?? [];
    for (const key of extensions) expect(ours.required ?? [], `${name}.${key}: an extension is optional`).not.toContain(key);
    const ourReferenceKeys = Object.keys(ourProperties).filter((key) => !extensions.includes(key));
    expect(sorted(ourReferenceKeys), `${name}: property keys`).toEqual(sorted(Object.keys(theirProperties)));
    expect(sorted(ours.required), `${name}: required keys`).toEqual(sorted(theirs.required));
    for (const [key, theirProperty] of Object.entries(theirProperties)) {
      const ourProperty = ourProperties[key];
      if (ourProperty === undefined) continue;
      expect(jsonTypes(ourProperty), `${name}.${key}: JSON types`).toEqual(jsonTypes(theirProperty));
    }
  });
});
