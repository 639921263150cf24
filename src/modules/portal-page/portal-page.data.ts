import type { DownloadableRead } from "../files/files.schemas.ts";
import type { DownloadableService } from "../files/files.steps.ts";
import type { PaymentFormSetup } from "../checkout-page/checkout-page.steps.ts";
import type { CustomerPortalCustomer } from "../customer-portal/portal-customers.schemas.ts";
import type { PortalCustomerService } from "../customer-portal/customer-portal.steps.ts";
import type { CustomerOrder } from "../customer-portal/portal-orders.schemas.ts";
import type { PortalOrderService } from "../customer-portal/customer-portal.steps.ts";
import type { PortalPaymentMethodService } from "../customer-portal/customer-portal.steps.ts";
import type { CustomerSubscription } from "../customer-portal/portal-subscriptions.schemas.ts";
import type { PortalSubscriptionService } from "../customer-portal/customer-portal.steps.ts";
import type { PortalSignInService } from "../customer-portal/customer-portal.steps.ts";
import type { LicenseKeyWithActivations } from "../license-keys/license-keys.schemas.ts";
import type { LicenseKeyService } from "../license-keys/license-keys.steps.ts";
import type { OrderDocumentService } from "../orders/orders.steps.ts";
import type { OrderVisibility } from "../orders/orders.steps.ts";
import type { CustomerPaymentMethod } from "../payments/payment-methods.schemas.ts";
import type { PortalPageSessions, PortalVisit } from "./portal-page.session.ts";

/** The services the portal's pages call: the same ones the portal API's routes call. */
export interface PortalPageServices {
  sessions: PortalPageSessions;
  customers: PortalCustomerService;
  orders: PortalOrderService;
  documents: OrderDocumentService;
  subscriptions: PortalSubscriptionService;
  licenseKeys: LicenseKeyService;
  downloadables: DownloadableService;
  paymentMethods: PortalPaymentMethodService;
  paymentForm: PaymentFormSetup;
  signIn: PortalSignInService;
}

/** The orders a visit may see, as the documents service takes them. */
export const visibilityOf = (visit: PortalVisit): OrderVisibility => ({
  allowed: [visit.organization.id],
  customerId: visit.session.customerId,
});

/**
 * Orders grow with every purchase and renewal: they are shown a page at a time, newest first. The
 * other lists grow with what a customer holds (subscriptions, keys, files, saved cards), and show their
 * first 100, newest first.
 */
export const ORDERS_PER_PAGE = 20;
const PAGE = { page: 1, limit: 100 } as const;

export interface Overview {
  customer: CustomerPortalCustomer;
  orders: CustomerOrder[];
  /** The page of orders shown (from 1) and the last one there is (0 without orders). */
  ordersPage: { page: number; maxPage: number };
  subscriptions: CustomerSubscription[];
  licenseKeys: LicenseKeyWithActivations[];
  /** The files the customer's benefits give, each behind an hour's signed link (the portal API's). */
  downloads: DownloadableRead[];
  paymentMethods: CustomerPaymentMethod[];
}

/** Everything the portal's main page shows, read in parallel. */
export async function loadOverview(services: PortalPageServices, session: PortalVisit["session"], ordersPage = 1): Promise<Overview> {
  const [customer, orders, subscriptions, keys, downloads, paymentMethods] = await Promise.all([
    services.customers.get(session),
    services.orders.list({ page: ordersPage, limit: ORDERS_PER_PAGE, sorting: ["-created_at"] }, session),
    services.subscriptions.list({ ...PAGE, sorting: ["-started_at"] }, session),
    services.licenseKeys.listForCustomer(PAGE, session),
    services.downloadables.list(session.customerId, PAGE),
    services.paymentMethods.list(PAGE, session),
  ]);
  const licenseKeys = await Promise.all(keys.items.map((key) => services.licenseKeys.getForCustomer(key.id, session)));
  return {
    customer,
    orders: orders.items,
    ordersPage: { page: ordersPage, maxPage: orders.pagination.max_page },
    subscriptions: subscriptions.items,
    licenseKeys,
    downloads: downloads.items,
    paymentMethods: paymentMethods.items,
  };
}
