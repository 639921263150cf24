import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, valueIssue, type ValidationIssue } from "../../http/errors.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import { toProduct } from "./products.mapper.ts";
import { planPrices, priceValues, type PricePlan } from "./products.prices.ts";
import * as queries from "./product-reads.repository.ts";
import { existingBenefitIds } from "../benefits/benefits.steps.ts";
import { attachCustomFields, existingCustomFieldIds } from "../custom-fields/custom-fields.steps.ts";
import { productMediaAttachments } from "../files/files.steps.ts";
import type { Executor } from "../../db/database.ts";
import * as repo from "./products.repository.ts";
import type { Static } from "@sinclair/typebox";
import type {
  ProductBenefitsUpdate,
  ProductCreate,
  ProductCreateRecurring,
  ProductListQuery,
  ProductUpdate,
} from "./product-inputs.schemas.ts";
import type { Product } from "./products.schemas.ts";
import type { ProductRow } from "./products.table.ts";

type Loc = (string | number)[];
const fail = (issues: ValidationIssue[]): void => {
  if (issues.length) throw new RequestValidationError(issues);
};

/** Interval and count come as a pair: both set or both empty. */
const pairIssue = (interval: unknown, count: unknown, loc: Loc): ValidationIssue[] =>
  (interval === null) === (count === null) ? [] : [valueIssue(loc, "The interval and its count must be set together.", count)];

// A media is an uploaded `product_media` file of the organization, or one the product already has.
function unknownMedias(medias: string[] | null | undefined, known: Set<string>): ValidationIssue[] {
  return (medias ?? []).flatMap((id, i) => (known.has(id) ? [] : [valueIssue(["body", "medias", i], "Media file not found.", id)]));
}

type AttachedFieldsInput = { custom_field_id: string; required: boolean }[] | null | undefined;

/** Each attached field must be a live field of the product's organization, attached once. */
async function customFieldIssues(db: Executor, organizationId: string, fields: AttachedFieldsInput): Promise<ValidationIssue[]> {
  if (!fields?.length) return [];
  const known = await existingCustomFieldIds(
    db,
    organizationId,
    fields.map((field) => field.custom_field_id),
  );
  const seen = new Set<string>();
  return fields.flatMap(({ custom_field_id: id }, i) => {
    const loc = ["body", "attached_custom_fields", i];
    const problem = !known.has(id) ? "Custom field does not exist." : seen.has(id) ? "Custom field is attached twice." : null;
    seen.add(id);
    return problem ? [valueIssue(loc, problem, id)] : [];
  });
}

const newPriceRows = (plan: PricePlan, owner: { organization_id: string; product_id: string; created_at: Date }) =>
  plan.create.map(({ price, position }) => ({ ...priceValues(price), position, ...owner }));

async function getProduct(deps: Deps, id: string, allowed: OrganizationScope): Promise<Product> {
  const row = await queries.findProductWithRelations(deps.db, id, allowed);
  if (!row) throw new ResourceNotFound();
  return toProduct(row);
}

/** The trial and meter intervals of a recurring product, each a pair. */
const recurringIssues = (recurring: Static<typeof ProductCreateRecurring>): ValidationIssue[] => [
  ...pairIssue(recurring.trial_interval ?? null, recurring.trial_interval_count ?? null, ["body", "trial_interval_count"]),
  ...pairIssue(recurring.meter_interval ?? null, recurring.meter_interval_count ?? null, ["body", "meter_interval_count"]),
];

async function createProduct(deps: Deps, principal: Principal, input: ProductCreate): Promise<Product> {
  const recurring = input.recurring_interval ? input : null;
  const prices = planPrices(input.prices, [], recurring !== null);
  fail([...prices.issues, ...(recurring ? recurringIssues(recurring) : [])]);
  const organization = await targetOrganization(deps.db, principal, input.organization_id);
  const medias = await productMediaAttachments(deps.db, deps.config.publicBaseUrl, organization.id, input.medias ?? []);
  fail([
    ...unknownMedias(input.medias, new Set(medias.map((media) => media.file_id))),
    ...(await customFieldIssues(deps.db, organization.id, input.attached_custom_fields)),
  ]);
  const now = deps.now();
  const id = await deps.db.transaction().execute(async (trx) => {
    const product = await repo.insertProduct(trx, {
      organization_id: organization.id,
      created_at: now,
      modified_at: null,
      name: input.name,
      description: input.description ?? null,
      visibility: input.visibility ?? "public",
      recurring_interval: recurring?.recurring_interval ?? null,
      recurring_interval_count: recurring ? (recurring.recurring_interval_count ?? 1) : null,
      trial_interval: recurring?.trial_interval ?? null,
      trial_interval_count: recurring?.trial_interval_count ?? null,
      meter_interval: recurring?.meter_interval ?? null,
      meter_interval_count: recurring?.meter_interval_count ?? null,
      metadata: JSON.stringify(input.metadata ?? {}),
    });
    await repo.insertPrices(trx, newPriceRows(prices, { organization_id: organization.id, product_id: product.id, created_at: now }));
    await repo.keepMedias(trx, product, input.medias ?? [], medias);
    await attachCustomFields(trx, organization.id, product.id, input.attached_custom_fields ?? []);
    return product.id;
  });
  return getProduct(deps, id, [organization.id]);
}

function listProducts(deps: Deps, query: ProductListQuery, allowed: OrganizationScope): Promise<Page<Product>> {
  const filters = {
    ids: query.id ?? null,
    organizationIds: query.organization_id ?? null,
    query: query.query,
    isArchived: query.is_archived,
    isRecurring: query.is_recurring,
    benefitIds: query.benefit_id ?? null,
    visibility: query.visibility ?? null,
    metadata: query.metadata,
  };
  const sorting = parseSorting(query.sorting);
  return paginate(
    query,
    () => queries.countProducts(deps.readDb, allowed, filters),
    async (offset, limit) => (await queries.listProducts(deps.readDb, allowed, filters, sorting, offset, limit)).map(toProduct),
  );
}

/** An update checked against the locked product: its issues, the new trial, and the price plan when prices change. */
async function checkUpdate(trx: Executor, deps: Deps, current: ProductRow, input: ProductUpdate) {
  const recurring = current.recurring_interval !== null;
  const issues: ValidationIssue[] = [];
  if (!recurring && (input.recurring_interval || input.recurring_interval_count)) {
    issues.push(
      valueIssue(
        ["body", "recurring_interval"],
        "A one-time product cannot become recurring.",
        input.recurring_interval ?? input.recurring_interval_count,
      ),
    );
  }
  if (!recurring && (input.trial_interval || input.trial_interval_count)) {
    issues.push(
      valueIssue(["body", "trial_interval"], "Only recurring products have trials.", input.trial_interval ?? input.trial_interval_count),
    );
  }
  const trialInterval = input.trial_interval === undefined ? current.trial_interval : input.trial_interval;
  const trialCount = input.trial_interval_count === undefined ? current.trial_interval_count : input.trial_interval_count;
  issues.push(...pairIssue(trialInterval, trialCount, ["body", "trial_interval_count"]));
  const medias = await productMediaAttachments(trx, deps.config.publicBaseUrl, current.organization_id, input.medias ?? []);
  const attached = input.medias ? await repo.productMediaIds(trx, current.id) : new Set<string>();
  issues.push(...unknownMedias(input.medias, new Set([...attached, ...medias.map((media) => media.file_id)])));
  issues.push(...(await customFieldIssues(trx, current.organization_id, input.attached_custom_fields)));

  const prices = input.prices ? planPrices(input.prices, await repo.livePrices(trx, current.id), recurring) : null;
  issues.push(...(prices?.issues ?? []));
  fail(issues);
  return { recurring, trialInterval, trialCount, prices, medias };
}

/** The product row is locked for the whole update, so concurrent price replacements apply one after another. */
async function updateProduct(deps: Deps, id: string, input: ProductUpdate, allowed: OrganizationScope): Promise<Product> {
  const organizationId = await deps.db.transaction().execute(async (trx) => {
    const current = await repo.findProductForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const { recurring, trialInterval, trialCount, prices, medias } = await checkUpdate(trx, deps, current, input);
    const now = deps.now();
    await repo.updateProduct(trx, current.id, {
      modified_at: now,
      ...(input.name ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.visibility ? { visibility: input.visibility } : {}),
      ...(typeof input.is_archived === "boolean" ? { is_archived: input.is_archived } : {}),
      ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
      ...(recurring && input.recurring_interval ? { recurring_interval: input.recurring_interval } : {}),
      ...(recurring && input.recurring_interval_count ? { recurring_interval_count: input.recurring_interval_count } : {}),
      trial_interval: trialInterval,
      trial_interval_count: trialCount,
    });
    if (prices) {
      await repo.keepPrices(trx, current.id, prices.keep, now);
      await repo.insertPrices(
        trx,
        newPriceRows(prices, { organization_id: current.organization_id, product_id: current.id, created_at: now }),
      );
    }
    if (input.medias) await repo.keepMedias(trx, current, input.medias, medias);
    if (input.attached_custom_fields) await attachCustomFields(trx, current.organization_id, current.id, input.attached_custom_fields);
    return current.organization_id;
  });
  return getProduct(deps, id, [organizationId]);
}

/**
 * What a change of a product's benefits does to the modules built on products, in its transaction
 * (its claimed seats' grants follow): products cannot import them, so services.ts hands it in.
 */
export type SyncProductSeats = (trx: Executor, productId: string, now: Date) => Promise<void>;

/** Replaces the benefits a product grants; its claimed seats' holders get the new ones and lose the removed ones. */
async function setProductBenefits(
  deps: Deps,
  syncProductSeats: SyncProductSeats,
  id: string,
  input: ProductBenefitsUpdate,
  allowed: OrganizationScope,
): Promise<Product> {
  const organizationId = await deps.db.transaction().execute(async (trx) => {
    const current = await repo.findProductForUpdate(trx, id, allowed);
    if (!current) throw new ResourceNotFound();
    const benefitIds = [...new Set(input.benefits)];
    const known = await existingBenefitIds(trx, current.organization_id, benefitIds);
    fail(
      input.benefits.flatMap((benefitId, i) =>
        known.has(benefitId) ? [] : [valueIssue(["body", "benefits", i], "Benefit does not exist.", benefitId)],
      ),
    );
    await repo.detachAllBenefits(trx, current.id);
    await repo.attachBenefits(trx, current.organization_id, current.id, benefitIds);
    const now = deps.now();
    await repo.updateProduct(trx, current.id, { modified_at: now });
    await syncProductSeats(trx, current.id, now);
    return current.organization_id;
  });
  return getProduct(deps, id, [organizationId]);
}

export function createProductService(deps: Deps, syncProductSeats: SyncProductSeats) {
  return {
    get: (id: string, allowed: OrganizationScope) => getProduct(deps, id, allowed),
    create: (principal: Principal, input: ProductCreate) => createProduct(deps, principal, input),
    list: (query: ProductListQuery, allowed: OrganizationScope) => listProducts(deps, query, allowed),
    update: (id: string, input: ProductUpdate, allowed: OrganizationScope) => updateProduct(deps, id, input, allowed),
    setBenefits: (id: string, input: ProductBenefitsUpdate, allowed: OrganizationScope) =>
      setProductBenefits(deps, syncProductSeats, id, input, allowed),
  };
}
export type ProductService = ReturnType<typeof createProductService>;
