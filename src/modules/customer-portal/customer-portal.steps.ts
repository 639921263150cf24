/**
 * What this module offers other modules and the flows: operations run on the caller's executor,
 * inside its transaction, and the rules they share. Other modules import this file, never the
 * module's repositories or services (docs/architecture.md, "Who may import whom").
 */
export { type PortalCustomerService } from "./portal-customers.service.ts";
export { type PortalOrderService } from "./portal-orders.service.ts";
export { type PortalPaymentMethodService } from "./portal-payment-methods.service.ts";
export { type PortalSubscriptionService } from "./portal-subscriptions.service.ts";
