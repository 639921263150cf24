import type { Deps } from "../context.ts";
import type { OrganizationScope } from "../http/auth.ts";
import { retireBenefit } from "../modules/benefits/benefits.steps.ts";
import { detachBenefitFromProducts } from "../modules/products/products.steps.ts";

// `DELETE /v1/benefits/{id}`: the benefit soft-deleted, its grants revoked and the products that
// carried it without it, in one transaction, as the hosted service deletes one.

/**
 * Deletes a benefit of the caller's organizations. Its products no longer carry it, so no purchase
 * grants it again and no subscription recovering from past due restores its revoked grants.
 */
async function deleteBenefit(deps: Deps, id: string, allowed: OrganizationScope): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await retireBenefit(trx, id, allowed, deps.now());
    await detachBenefitFromProducts(trx, id);
  });
}

/** The flow bound to the application's dependencies: the delete route. */
export const benefitDeletion = (deps: Deps) => ({
  delete: (id: string, allowed: OrganizationScope) => deleteBenefit(deps, id, allowed),
});
