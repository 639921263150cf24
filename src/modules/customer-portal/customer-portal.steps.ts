/**
 * What this module offers other modules and the flows: operations run on the caller's executor,
 * inside its transaction, and the rules they share. Other modules import this file, never the
 * module's repositories or services (docs/architecture.md, "Who may import whom").
 */
export { type PortalCustomerService } from "./portal-customers.service.ts";
export { type PortalOrderService } from "./portal-orders.service.ts";
export { type PortalPaymentMethodService } from "./portal-payment-methods.service.ts";
export { type PortalSubscriptionService } from "./portal-subscriptions.service.ts";
export { signInRateLimits } from "./portal-sign-in.limits.ts";
export { CODE_FORM_PATH, type PortalSignInService } from "./portal-sign-in.service.ts";
export { CustomerSessionCodeRequest } from "./portal-customer-session.schemas.ts";
export { CustomerSelectionRequired, CustomerSessionCodeInvalidOrExpired } from "./portal-sign-in.errors.ts";
