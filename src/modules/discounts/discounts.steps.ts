/**
 * What this module offers other modules and the flows: operations run on the caller's executor,
 * inside its transaction, and the rules they share. Other modules import this file, never the
 * module's repositories or services (docs/architecture.md, "Who may import whom").
 */
export { discountAmount } from "./discount-amount.ts";
export {
  findHeldDiscount,
  findLiveDiscount,
  redeemDiscount,
  releaseDiscount,
  type DiscountWithProducts,
} from "./discount-redemptions.repository.ts";

// What orders and subscriptions read of their discounts.
export { discountJson, discountNameOf, discountNames, findDiscountById } from "./discounts.repository.ts";

// Discounts as other modules embed them in their own statements.
export { selectDiscounts } from "./discounts.repository.ts";
