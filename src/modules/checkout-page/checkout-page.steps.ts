/**
 * What this module offers other modules and the flows: operations run on the caller's executor,
 * inside its transaction, and the rules they share. Other modules import this file, never the
 * module's repositories or services (docs/architecture.md, "Who may import whom").
 */
export { type PaymentFormKind } from "./checkout-page.data.ts";
export { type PaymentFormSetup } from "./payment-form.ts";
