import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue, type ValidationIssue } from "../../http/errors.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { TokenPrefix, generateToken } from "../../values/tokens.ts";
import { findLiveDiscount } from "../discounts/discounts.steps.ts";
import { findPriceProduct, findProductOrganization, offerableProductIds } from "../products/products.steps.ts";
import { toCheckoutLink } from "./checkout-links.mapper.ts";
import * as repo from "./checkout-links.repository.ts";
import type { CheckoutLink, CheckoutLinkCreate, CheckoutLinkListQuery, CheckoutLinkUpdate } from "./checkout-links.schemas.ts";

type Loc = (string | number)[];

const fail = (issues: ValidationIssue[]): void => {
  if (issues.length) throw new RequestValidationError(issues);
};

/** The products a create names, each with the place a problem with it is reported at. */
async function requestedProducts(db: Executor, input: CheckoutLinkCreate, allowed: OrganizationScope) {
  if ("products" in input) return input.products.map((id, i) => ({ id, loc: ["body", "products", i] as Loc }));
  if ("product_id" in input) return [{ id: input.product_id, loc: ["body", "product_id"] as Loc }];
  const price = await findPriceProduct(db, input.product_price_id, allowed);
  if (!price) throw new RequestValidationError([fieldIssue(["body", "product_price_id"], "Price does not exist.", input.product_price_id)]);
  return [{ id: price.product_id, loc: ["body", "product_price_id"] as Loc }];
}

/** Each product must be an unarchived product of the organization, listed once. */
async function productIssues(db: Executor, organizationId: string, products: { id: string; loc: Loc }[]): Promise<ValidationIssue[]> {
  const known = await offerableProductIds(
    db,
    organizationId,
    products.map((p) => p.id),
  );
  const seen = new Set<string>();
  return products.flatMap(({ id, loc }) => {
    const problem = !known.has(id) ? "Product does not exist." : seen.has(id) ? "Product is listed twice." : null;
    seen.add(id);
    return problem ? [fieldIssue(loc, problem, id)] : [];
  });
}

async function discountIssues(db: Executor, organizationId: string, discountId: string | null | undefined): Promise<ValidationIssue[]> {
  if (!discountId || (await findLiveDiscount(db, organizationId, { id: discountId }))) return [];
  return [fieldIssue(["body", "discount_id"], "Discount does not exist.", discountId)];
}

async function getCheckoutLink(deps: Deps, id: string, allowed: OrganizationScope): Promise<CheckoutLink> {
  const row = await repo.findCheckoutLink(deps.db, { id }, allowed);
  if (!row) throw new ResourceNotFound();
  return toCheckoutLink(row, deps.config.publicBaseUrl);
}

async function listCheckoutLinkPage(deps: Deps, query: CheckoutLinkListQuery, allowed: OrganizationScope): Promise<Page<CheckoutLink>> {
  const filters = { organizationIds: query.organization_id ?? null, productIds: query.product_id ?? null };
  const sorting = parseSorting(query.sorting);
  return paginate(
    query,
    () => repo.countCheckoutLinks(deps.readDb, allowed, filters),
    async (offset, limit) =>
      (await repo.listCheckoutLinks(deps.readDb, allowed, filters, sorting, offset, limit)).map((row) =>
        toCheckoutLink(row, deps.config.publicBaseUrl),
      ),
  );
}

/** The link belongs to the token's organization, or for the instance owner to its first product's. */
async function createCheckoutLink(deps: Deps, input: CheckoutLinkCreate, allowed: OrganizationScope): Promise<CheckoutLink> {
  const products = await requestedProducts(deps.db, input, allowed);
  const first = products[0]!;
  const organizationId = allowed?.[0] ?? (await findProductOrganization(deps.db, first.id));
  if (!organizationId) throw new RequestValidationError([fieldIssue(first.loc, "Product does not exist.", first.id)]);
  fail([
    ...(await productIssues(deps.db, organizationId, products)),
    ...(await discountIssues(deps.db, organizationId, input.discount_id)),
  ]);
  const id = await deps.db.transaction().execute(async (trx) => {
    const link = await repo.insertCheckoutLink(trx, {
      organization_id: organizationId,
      created_at: deps.now(),
      modified_at: null,
      deleted_at: null,
      client_secret: generateToken(TokenPrefix.checkoutLinkClientSecret),
      label: input.label ?? null,
      allow_discount_codes: input.allow_discount_codes ?? true,
      require_billing_address: input.require_billing_address ?? false,
      discount_id: input.discount_id ?? null,
      seats: input.seats ?? null,
      trial_interval: input.trial_interval ?? null,
      trial_interval_count: input.trial_interval_count ?? null,
      success_url: input.success_url ?? null,
      return_url: input.return_url ?? null,
      metadata: JSON.stringify(input.metadata ?? {}),
    });
    await repo.setCheckoutLinkProducts(
      trx,
      organizationId,
      link.id,
      products.map((p) => p.id),
    );
    return link.id;
  });
  return getCheckoutLink(deps, id, [organizationId]);
}

/** Only what the body carries changes; `products` replaces the list, a null discount removes it. */
async function updateCheckoutLink(deps: Deps, id: string, input: CheckoutLinkUpdate, allowed: OrganizationScope): Promise<CheckoutLink> {
  const organizationId = await deps.db.transaction().execute(async (trx) => {
    const current = await repo.findCheckoutLinkForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const products = input.products?.map((productId, i) => ({ id: productId, loc: ["body", "products", i] as Loc }));
    fail([
      ...(products ? await productIssues(trx, current.organization_id, products) : []),
      ...(await discountIssues(trx, current.organization_id, input.discount_id)),
    ]);
    const nullable = ["label", "discount_id", "seats", "trial_interval", "trial_interval_count", "success_url", "return_url"] as const;
    const changes = Object.fromEntries(nullable.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]));
    await repo.updateCheckoutLink(trx, current.id, {
      ...changes,
      modified_at: deps.now(),
      ...(typeof input.allow_discount_codes === "boolean" ? { allow_discount_codes: input.allow_discount_codes } : {}),
      ...(typeof input.require_billing_address === "boolean" ? { require_billing_address: input.require_billing_address } : {}),
      ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
    });
    if (products)
      await repo.setCheckoutLinkProducts(
        trx,
        current.organization_id,
        current.id,
        products.map((p) => p.id),
      );
    return current.organization_id;
  });
  return getCheckoutLink(deps, id, [organizationId]);
}

/** Soft-deletes the link: its URL answers 404 from then on; sessions it opened are untouched. */
async function deleteCheckoutLink(deps: Deps, id: string, allowed: OrganizationScope): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await repo.findCheckoutLinkForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const now = deps.now();
    await repo.updateCheckoutLink(trx, current.id, { deleted_at: now, modified_at: now });
  });
}

export function createCheckoutLinkService(deps: Deps) {
  return {
    get: (id: string, allowed: OrganizationScope) => getCheckoutLink(deps, id, allowed),
    list: (query: CheckoutLinkListQuery, allowed: OrganizationScope) => listCheckoutLinkPage(deps, query, allowed),
    create: (input: CheckoutLinkCreate, allowed: OrganizationScope) => createCheckoutLink(deps, input, allowed),
    update: (id: string, input: CheckoutLinkUpdate, allowed: OrganizationScope) => updateCheckoutLink(deps, id, input, allowed),
    delete: (id: string, allowed: OrganizationScope) => deleteCheckoutLink(deps, id, allowed),
  };
}
export type CheckoutLinkService = ReturnType<typeof createCheckoutLinkService>;
