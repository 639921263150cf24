import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, valueError, valueIssue, type ValidationIssue, missingIssue } from "../../http/errors.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { uniqueViolation } from "../../http/pg-errors.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import { existingProductIds } from "../products/products.steps.ts";
import { toDiscount } from "./discounts.mapper.ts";
import * as repo from "./discounts.repository.ts";
import type { Discount, DiscountCreate, DiscountListQuery } from "./discounts.schemas.ts";

const CODE_TAKEN = "Discount with this code already exists.";

/** Fixed amounts per currency: `amounts`, else the deprecated single `amount` in `currency`. */
function fixedAmounts(input: Extract<DiscountCreate, { type: "fixed" }>): Record<string, number> {
  const amounts =
    input.amounts ?? (input.amount !== undefined && input.amount !== null ? { [input.currency ?? "usd"]: input.amount } : null);
  if (amounts === null) {
    throw new RequestValidationError([missingIssue(["body", "amounts"])]);
  }
  for (const [currency, amount] of Object.entries(amounts)) {
    if (amount <= 0) {
      const loc = input.amounts ? ["body", "amounts", currency] : ["body", "amount"];
      throw valueError(loc, "The amount must be greater than 0.", amount);
    }
  }
  return amounts;
}

function checkShape(input: DiscountCreate): void {
  const issues: ValidationIssue[] = [];
  const months = input.duration_in_months ?? null;
  if (input.duration === "repeating" && months === null) {
    issues.push(missingIssue(["body", "duration_in_months"]));
  }
  if (input.duration !== "repeating" && months !== null) {
    issues.push(valueIssue(["body", "duration_in_months"], "Only repeating discounts take duration_in_months.", months));
  }
  if (input.starts_at && input.ends_at && new Date(input.ends_at) <= new Date(input.starts_at)) {
    issues.push(valueIssue(["body", "ends_at"], "ends_at must be after starts_at.", input.ends_at));
  }
  if (issues.length) throw new RequestValidationError(issues);
}

export function createDiscountService(deps: Deps) {
  return {
    async create(principal: Principal, input: DiscountCreate): Promise<Discount> {
      checkShape(input);
      const amounts = input.type === "fixed" ? fixedAmounts(input) : null;
      const organization = await targetOrganization(deps.db, principal, input.organization_id);
      const productIds = [...new Set(input.products ?? [])];
      const known = await existingProductIds(deps.db, organization.id, productIds);
      const unknownIndex = (input.products ?? []).findIndex((id) => !known.has(id));
      if (unknownIndex >= 0)
        throw valueError(["body", "products", unknownIndex], "Product does not exist.", input.products?.[unknownIndex]);
      const code = input.code ?? null;
      if (code !== null && (await repo.findDiscountByCode(deps.db, organization.id, code)))
        throw valueError(["body", "code"], CODE_TAKEN, code);
      const now = deps.now();
      try {
        const id = await deps.db.transaction().execute(async (trx) => {
          const row = await repo.insertDiscount(trx, {
            organization_id: organization.id,
            created_at: now,
            modified_at: null,
            name: input.name,
            code,
            type: input.type,
            duration: input.duration,
            duration_in_months: input.duration === "repeating" ? (input.duration_in_months ?? null) : null,
            basis_points: input.type === "percentage" ? input.basis_points : null,
            amounts: amounts ? JSON.stringify(amounts) : null,
            starts_at: input.starts_at ? new Date(input.starts_at) : null,
            ends_at: input.ends_at ? new Date(input.ends_at) : null,
            max_redemptions: input.max_redemptions ?? null,
            max_redemptions_per_customer: input.max_redemptions_per_customer ?? null,
            metadata: JSON.stringify(input.metadata ?? {}),
            deleted_at: null,
          });
          await repo.restrictDiscountToProducts(trx, organization.id, row.id, productIds);
          return row.id;
        });
        return await this.get(id, [organization.id]);
      } catch (error) {
        // Two creations racing for one code: the unique index decides, the loser gets the same 422.
        if (uniqueViolation(error) === "discounts_org_code_uq") throw valueError(["body", "code"], CODE_TAKEN, code);
        throw error;
      }
    },

    async get(id: string, allowed: OrganizationScope): Promise<Discount> {
      const row = await repo.findDiscount(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      return toDiscount(row);
    },

    async list(query: DiscountListQuery, allowed: OrganizationScope): Promise<Page<Discount>> {
      const filters = { organizationIds: query.organization_id ?? null, query: query.query };
      const sorting = parseSorting(query.sorting);
      return paginate(
        query,
        () => repo.countDiscounts(deps.readDb, allowed, filters),
        async (offset, limit) => (await repo.listDiscounts(deps.readDb, allowed, filters, sorting, offset, limit)).map(toDiscount),
      );
    },
  };
}
export type DiscountService = ReturnType<typeof createDiscountService>;
