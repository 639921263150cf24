import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import type { Executor } from "../../db/database.ts";
import {
  RequestValidationError,
  ResourceNotFound,
  fieldIssue,
  missingIssue,
  valueError,
  valueIssue,
  type ValidationIssue,
} from "../../http/errors.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { uniqueViolation } from "../../http/pg-errors.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import { existingProductIds } from "../products/products.steps.ts";
import { toDiscount } from "./discounts.mapper.ts";
import * as repo from "./discounts.repository.ts";
import type { Discount, DiscountCreate, DiscountListQuery, DiscountUpdate } from "./discounts.schemas.ts";
import type { DiscountRow } from "./discounts.table.ts";

const CODE_TAKEN = "Discount with this code already exists.";
const REDEEMED = "This field cannot be changed because the discount has already been redeemed.";

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

/** Which of the requested products are not the organization's: a 422 at the first. */
async function checkProducts(db: Executor, organizationId: string, products: readonly string[]): Promise<string[]> {
  const unique = [...new Set(products)];
  const known = await existingProductIds(db, organizationId, unique);
  const unknownIndex = products.findIndex((id) => !known.has(id));
  if (unknownIndex >= 0) throw valueError(["body", "products", unknownIndex], "Product does not exist.", products[unknownIndex]);
  return unique;
}

const dateOrNull = (value: string | null) => (value === null ? null : new Date(value));

/** The fixed amounts an update sends (`amounts`, else the deprecated `amount` in `currency`), with where they were sent. */
function sentAmounts(input: DiscountUpdate): { amounts: Record<string, number>; loc: string[] } | null {
  if (input.amounts) return { amounts: input.amounts, loc: ["body", "amounts"] };
  if (input.amount !== undefined && input.amount !== null)
    return { amounts: { [input.currency ?? "usd"]: input.amount }, loc: ["body", "amount"] };
  return null;
}

const sameAmounts = (a: Record<string, number>, b: Record<string, number> | null) =>
  b !== null && Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([currency, amount]) => b[currency] === amount);

/**
 * What an update may not do to this discount, as the hosted service answers: change its duration
 * or type; give it the other type's amount, or months it does not count; once redeemed, change
 * what it takes off or for how long (sending the same value again is no change).
 */
function updateIssues(current: DiscountRow, input: DiscountUpdate): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const redeemed = current.redemptions_count > 0;
  if (input.duration && input.duration !== current.duration)
    issues.push(fieldIssue(["body", "duration"], "Duration cannot be changed.", input.duration));
  if (input.type && input.type !== current.type) issues.push(fieldIssue(["body", "type"], "Type cannot be changed.", input.type));
  const months = input.duration_in_months ?? null;
  if (months !== null && current.duration !== "repeating")
    issues.push(valueIssue(["body", "duration_in_months"], "Only repeating discounts take duration_in_months.", months));
  else if (months !== null && redeemed && months !== current.duration_in_months)
    issues.push(fieldIssue(["body", "duration_in_months"], REDEEMED, months));
  const basisPoints = input.basis_points ?? null;
  if (basisPoints !== null && current.type !== "percentage")
    issues.push(valueIssue(["body", "basis_points"], "Only percentage discounts take basis_points.", basisPoints));
  else if (basisPoints !== null && redeemed && basisPoints !== current.basis_points)
    issues.push(fieldIssue(["body", "basis_points"], REDEEMED, basisPoints));
  const amounts = sentAmounts(input);
  if (amounts && current.type !== "fixed") issues.push(valueIssue(amounts.loc, "Only fixed discounts take amounts.", amounts.amounts));
  else if (amounts && redeemed && !sameAmounts(amounts.amounts, current.amounts))
    issues.push(fieldIssue(amounts.loc, REDEEMED, amounts.amounts));
  for (const [currency, amount] of Object.entries(amounts?.amounts ?? {})) {
    if (amount <= 0)
      issues.push(
        valueIssue(input.amounts ? ["body", "amounts", currency] : ["body", "amount"], "The amount must be greater than 0.", amount),
      );
  }
  const startsAt = input.starts_at === undefined ? current.starts_at : dateOrNull(input.starts_at);
  const endsAt = input.ends_at === undefined ? current.ends_at : dateOrNull(input.ends_at);
  if (startsAt && endsAt && endsAt <= startsAt)
    issues.push(valueIssue(["body", "ends_at"], "ends_at must be after starts_at.", input.ends_at ?? null));
  return issues;
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

/** The live discount as its read answers it, on the caller's transaction. */
async function readDiscount(db: Executor, id: string): Promise<Discount> {
  const row = await repo.findDiscount(db, id, null);
  if (!row) throw new Error(`discount ${id} vanished within its own transaction`);
  return toDiscount(row);
}

export function createDiscountService(deps: Deps) {
  return {
    async create(principal: Principal, input: DiscountCreate): Promise<Discount> {
      checkShape(input);
      const amounts = input.type === "fixed" ? fixedAmounts(input) : null;
      const organization = await targetOrganization(deps.db, principal, input.organization_id);
      const productIds = await checkProducts(deps.db, organization.id, input.products ?? []);
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

    /**
     * Only the fields sent change (`products` replaces the list); `discount.updated` follows. The
     * row is locked, so a redemption cannot slip between the "already redeemed" check and the write.
     */
    async update(id: string, input: DiscountUpdate, allowed: OrganizationScope): Promise<Discount> {
      const code = input.code ?? null;
      try {
        return await deps.db.transaction().execute(async (trx) => {
          const current = await repo.findDiscountForUpdate(trx, id, allowed);
          if (!current) throw new ResourceNotFound();
          const issues = updateIssues(current, input);
          if (issues.length) throw new RequestValidationError(issues);
          const productIds = input.products ? await checkProducts(trx, current.organization_id, input.products) : null;
          const holder = code !== null ? await repo.findDiscountByCode(trx, current.organization_id, code) : undefined;
          if (holder && holder.id !== id) throw valueError(["body", "code"], CODE_TAKEN, code);
          const amounts = current.type === "fixed" ? sentAmounts(input) : null;
          const now = deps.now();
          await repo.updateDiscount(trx, id, {
            modified_at: now,
            ...(input.name ? { name: input.name } : {}),
            ...(input.code !== undefined ? { code } : {}),
            ...(input.starts_at !== undefined ? { starts_at: dateOrNull(input.starts_at) } : {}),
            ...(input.ends_at !== undefined ? { ends_at: dateOrNull(input.ends_at) } : {}),
            ...(input.max_redemptions !== undefined ? { max_redemptions: input.max_redemptions } : {}),
            ...(input.max_redemptions_per_customer !== undefined
              ? { max_redemptions_per_customer: input.max_redemptions_per_customer }
              : {}),
            ...(input.duration_in_months ? { duration_in_months: input.duration_in_months } : {}),
            ...(current.type === "percentage" && input.basis_points ? { basis_points: input.basis_points } : {}),
            ...(amounts ? { amounts: JSON.stringify(amounts.amounts) } : {}),
            ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
          });
          if (productIds) {
            await repo.unrestrictDiscount(trx, id);
            await repo.restrictDiscountToProducts(trx, current.organization_id, id, productIds);
          }
          const discount = await readDiscount(trx, id);
          await recordWebhookEvent(trx, { organizationId: current.organization_id, type: "discount.updated", data: discount, now });
          return discount;
        });
      } catch (error) {
        // Two updates racing for one code: the unique index decides, the loser gets the same 422.
        if (uniqueViolation(error) === "discounts_org_code_uq") throw valueError(["body", "code"], CODE_TAKEN, code);
        throw error;
      }
    },

    /**
     * Soft-deletes the discount, redeemed or not, and sends `discount.deleted`. Its code is free
     * again; no new checkout or subscription change can apply it, while those that hold it keep it
     * (the hosted service's renewals never look at the deletion).
     */
    async delete(id: string, allowed: OrganizationScope): Promise<void> {
      await deps.db.transaction().execute(async (trx) => {
        const current = await repo.findDiscountForUpdate(trx, id, allowed);
        if (!current) throw new ResourceNotFound();
        const discount = await readDiscount(trx, id);
        const now = deps.now();
        await repo.updateDiscount(trx, id, { deleted_at: now, modified_at: now });
        await recordWebhookEvent(trx, { organizationId: current.organization_id, type: "discount.deleted", data: discount, now });
      });
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
