import type { Executor } from "../../db/database.ts";
import { fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { findHeldDiscount, findLiveDiscount, type DiscountWithProducts } from "../discounts/discounts.steps.ts";
import type { CheckoutChanges } from "./checkout-inputs.schemas.ts";
import type { CheckoutRow } from "./checkouts.table.ts";

// Which discount an edit leaves on a session.

/** Why a discount cannot apply to this selection, or null when it can. */
function discountProblem(discount: DiscountWithProducts, productId: string | null, currency: string, now: Date): string | null {
  if (discount.starts_at && discount.starts_at > now) return "This discount is not active yet.";
  if (discount.ends_at && discount.ends_at <= now) return "This discount has ended.";
  if (discount.max_redemptions !== null && discount.redemptions_count >= discount.max_redemptions)
    return "This discount has reached its maximum number of redemptions.";
  if (discount.product_ids.length > 0 && (productId === null || !discount.product_ids.includes(productId)))
    return "This discount does not apply to the selected product.";
  if (discount.type === "fixed" && discount.amounts?.[currency] === undefined)
    return `This discount has no amount in ${currency.toUpperCase()}.`;
  return null;
}

/**
 * The discount after this edit: the merchant sets it by id, the buyer by code (when codes are
 * allowed); a new selection the current discount does not cover drops it instead of refusing.
 */
export async function resolveDiscount(
  draft: Pick<CheckoutRow, "organization_id" | "discount_id" | "product_id" | "currency" | "allow_discount_codes">,
  changes: Pick<CheckoutChanges, "discount_id" | "discount_code">,
  ctx: { db: Executor; now: Date; side: "merchant" | "buyer"; prefill?: boolean },
  selectionChanged: boolean,
  issues: ValidationIssue[],
): Promise<DiscountWithProducts | null> {
  const find = async (where: { id: string } | { code: string }) => (await findLiveDiscount(ctx.db, draft.organization_id, where)) ?? null;
  // What the session holds stays, even deleted since (the buyer pays the price shown); a new pick must be live.
  const current = draft.discount_id ? ((await findHeldDiscount(ctx.db, draft.organization_id, draft.discount_id)) ?? null) : null;
  const problemOf = (discount: DiscountWithProducts) => discountProblem(discount, draft.product_id, draft.currency, ctx.now);
  if (ctx.side === "merchant" && changes.discount_id !== undefined) {
    const chosen = changes.discount_id ? await find({ id: changes.discount_id }) : null;
    const problem = chosen ? problemOf(chosen) : changes.discount_id ? "Discount does not exist." : null;
    if (problem && ctx.prefill) return null;
    if (problem) issues.push(fieldIssue(["body", "discount_id"], problem, changes.discount_id));
    return chosen;
  }
  if (changes.discount_code !== undefined) {
    if (!draft.allow_discount_codes) {
      issues.push(fieldIssue(["body", "discount_code"], "Discount codes are not allowed on this checkout.", changes.discount_code));
      return current;
    }
    const chosen = changes.discount_code ? await find({ code: changes.discount_code.trim() }) : null;
    const problem = chosen ? problemOf(chosen) : changes.discount_code ? "Discount code is invalid." : null;
    if (problem) issues.push(fieldIssue(["body", "discount_code"], problem, changes.discount_code));
    return chosen;
  }
  return current && selectionChanged && problemOf(current) !== null ? null : current;
}
