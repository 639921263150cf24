import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { toStoredAddress } from "../../schema/address.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { type RequestValidationError, valueError } from "../../http/errors.ts";
import { asList, paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { uniqueViolation } from "../../http/pg-errors.ts";
import { requireTaxId } from "../../adapters/tax-engine/tax-id.ts";
import { enqueueCustomerStateChanged } from "../../contracts/customer-state-changes.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import { toPaymentMethod } from "../payments/payment-methods.mapper.ts";
import type { PaymentMethod, PaymentMethodListQuery } from "../payments/payment-methods.schemas.ts";
import { countPaymentMethods, listPaymentMethods } from "../payments/payments.steps.ts";
import { customersCsv } from "./customers.export.ts";
import { toCustomer } from "./customers.mapper.ts";
import { ensureOwner, memberManagementEnabled } from "./member-changes.ts";
import { findVisibleCustomer, lockVisibleCustomer, type CustomerTarget } from "./customer-lookups.ts";
import * as repo from "./customers.repository.ts";
import type {
  Customer,
  CustomerCreate,
  CustomerExportQuery,
  CustomerListQuery,
  CustomerUpdate,
  CustomerUpdateExternalId,
} from "./customers.schemas.ts";
import type { CustomerRow } from "./customers.table.ts";

const EMAIL_TAKEN = "A customer with this email address already exists.";
const EXTERNAL_ID_TAKEN = "A customer with this external ID already exists.";

/** The unique indexes are the arbiter of races; their violations become the same 422 as the pre-checks. */
function clashError(constraint: string, input: { email?: string | null; external_id?: string | null }): RequestValidationError | null {
  if (constraint === "customers_org_email_uq") return valueError(["body", "email"], EMAIL_TAKEN, input.email);
  if (constraint === "customers_org_external_id_uq") return valueError(["body", "external_id"], EXTERNAL_ID_TAKEN, input.external_id);
  return null;
}

async function assertUnique(
  db: Executor,
  organizationId: string,
  input: { email?: string | null; external_id?: string | null },
  exceptId: string | null,
) {
  if (input.email && (await repo.findClash(db, organizationId, "email", input.email, exceptId))) {
    throw valueError(["body", "email"], EMAIL_TAKEN, input.email);
  }
  if (input.external_id && (await repo.findClash(db, organizationId, "external_id", input.external_id, exceptId))) {
    throw valueError(["body", "external_id"], EXTERNAL_ID_TAKEN, input.external_id);
  }
}

/** Tax IDs are only meaningful against a country: they are checked against the billing address. */
export const CUSTOMER_TAX_ID_FIELDS = { taxId: ["body", "tax_id"], country: ["body", "billing_address"] };

async function guardUnique<T>(work: () => Promise<T>, input: { email?: string | null; external_id?: string | null }): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const constraint = uniqueViolation(error);
    const mapped = constraint === null ? null : clashError(constraint, input);
    throw mapped ?? error;
  }
}

/**
 * A new customer of the caller's organization, with its `customer.created` and, under the member
 * model, its owner member.
 */
async function createCustomer(deps: Deps, principal: Principal, input: CustomerCreate): Promise<Customer> {
  const organization = await targetOrganization(deps.db, principal, input.organization_id);
  // Customers are reached by email (sessions, receipts): a team without its own takes its owner's.
  const email = input.email ?? input.owner?.email ?? null;
  if (email === null) {
    throw valueError(["body"], "An owner with an email address is required when creating a team customer without an email.", input);
  }
  const address = input.billing_address ? toStoredAddress(input.billing_address) : null;
  const taxId = input.tax_id ? requireTaxId(input.tax_id, address?.country, CUSTOMER_TAX_ID_FIELDS) : null;
  await assertUnique(deps.db, organization.id, input, null);
  const now = deps.now();
  return guardUnique(
    () =>
      deps.db.transaction().execute(async (trx) => {
        const row = await repo.insertCustomer(trx, {
          organization_id: organization.id,
          created_at: now,
          modified_at: null,
          type: input.type ?? "individual",
          email,
          external_id: input.external_id ?? null,
          name: input.name ?? null,
          billing_name: null,
          billing_address: address ? JSON.stringify(address) : null,
          tax_id: taxId ? JSON.stringify(taxId) : null,
          locale: input.locale ?? null,
          default_payment_method_id: null,
          metadata: JSON.stringify(input.metadata ?? {}),
          deleted_at: null,
        });
        const customer = toCustomer(row);
        await recordWebhookEvent(trx, { organizationId: organization.id, type: "customer.created", data: customer, now });
        if (memberManagementEnabled(organization)) await ensureOwner(trx, row, input.owner ?? null, now);
        // The state carries the customer's own fields: the hosted service follows customer.* with a state event.
        await enqueueCustomerStateChanged(trx, customer.id);
        return customer;
      }),
    input,
  );
}

/** The customer's live saved methods, newest first, each saying whether it is the default. */
async function listCustomerPaymentMethods(
  deps: Deps,
  customer: CustomerTarget,
  query: PaymentMethodListQuery,
  allowed: OrganizationScope,
): Promise<Page<PaymentMethod>> {
  const row = await findVisibleCustomer(deps.db, customer, allowed);
  return paginate(
    query,
    () => countPaymentMethods(deps.db, row.id),
    async (offset, limit) =>
      (await listPaymentMethods(deps.db, row.id, { offset, limit })).map((method) =>
        toPaymentMethod(method, row.default_payment_method_id),
      ),
  );
}

async function listCustomerPage(deps: Deps, query: CustomerListQuery, allowed: OrganizationScope): Promise<Page<Customer>> {
  const filters = {
    organizationIds: query.organization_id ?? null,
    email: query.email,
    query: query.query,
    active: query.active,
    metadata: query.metadata,
  };
  const sorting = parseSorting(query.sorting);
  return paginate(
    query,
    () => repo.countCustomers(deps.readDb, allowed, filters),
    async (offset, limit) => (await repo.listCustomers(deps.readDb, allowed, filters, sorting, offset, limit)).map(toCustomer),
  );
}

/** The changes an update may never make: removing the email, changing a set external ID, a team back to an individual. */
function assertAllowedChange(current: CustomerRow, input: CustomerUpdate): asserts input is CustomerUpdate & { email?: string } {
  if (input.email === null) throw valueError(["body", "email"], "Email cannot be removed.", null);
  if (input.external_id !== undefined && current.external_id !== null && input.external_id !== current.external_id) {
    throw valueError(["body", "external_id"], "Customer external ID cannot be updated.", input.external_id);
  }
  if (current.type === "team" && input.type === "individual") {
    throw valueError(["body", "type"], "Customer type cannot be downgraded from 'team' to 'individual'.", input.type);
  }
}

/**
 * The billing address and tax ID after an update: a new tax ID is checked against the resulting
 * address; a new address re-checks the stored one.
 */
function billingAfter(current: CustomerRow, input: CustomerUpdate) {
  const address =
    input.billing_address === undefined ? current.billing_address : input.billing_address && toStoredAddress(input.billing_address);
  const taxId =
    input.tax_id !== undefined
      ? input.tax_id && requireTaxId(input.tax_id, address?.country, CUSTOMER_TAX_ID_FIELDS)
      : current.tax_id && input.billing_address !== undefined
        ? requireTaxId(current.tax_id[0], address?.country, CUSTOMER_TAX_ID_FIELDS)
        : current.tax_id;
  return { billing_address: address ? JSON.stringify(address) : null, tax_id: taxId ? JSON.stringify(taxId) : null };
}

/**
 * The fields the update by external ID may change. Keys beyond its schema pass validation (as the
 * hosted service ignores them), so `external_id` or `type` sent there are dropped here, not applied.
 */
const externalUpdate = ({ email, name, billing_address, tax_id, locale, metadata }: CustomerUpdateExternalId): CustomerUpdate => ({
  email,
  name,
  billing_address,
  tax_id,
  locale,
  metadata,
});

/** An update by id or by external ID (whose body cannot carry `external_id` nor `type`), under the customer's row lock. */
async function editCustomer(deps: Deps, target: CustomerTarget, input: CustomerUpdate, allowed: OrganizationScope): Promise<Customer> {
  return guardUnique(
    () =>
      deps.db.transaction().execute(async (trx) => {
        const current = await lockVisibleCustomer(trx, target, allowed);
        assertAllowedChange(current, input);
        const emailChanged = input.email !== undefined && input.email.toLowerCase() !== current.email.toLowerCase();
        await assertUnique(
          trx,
          current.organization_id,
          { email: emailChanged ? input.email : null, external_id: input.external_id },
          current.id,
        );
        const billing = billingAfter(current, input);
        const now = deps.now();
        const row = await repo.updateCustomer(trx, current.id, {
          modified_at: now,
          ...(input.email !== undefined ? { email: input.email, email_verified: emailChanged ? false : current.email_verified } : {}),
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.locale !== undefined ? { locale: input.locale } : {}),
          ...(input.external_id !== undefined ? { external_id: input.external_id } : {}),
          ...(input.type ? { type: input.type } : {}),
          ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
          ...billing,
        });
        const customer = toCustomer(row);
        await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "customer.updated", data: customer, now });
        await enqueueCustomerStateChanged(trx, customer.id);
        return customer;
      }),
    input,
  );
}

export function createCustomerService(deps: Deps) {
  return {
    create: (principal: Principal, input: CustomerCreate) => createCustomer(deps, principal, input),
    get: async (id: string, allowed: OrganizationScope): Promise<Customer> =>
      toCustomer(await findVisibleCustomer(deps.db, { id }, allowed)),
    getByExternalId: async (externalId: string, allowed: OrganizationScope): Promise<Customer> =>
      toCustomer(await findVisibleCustomer(deps.db, { externalId }, allowed)),
    listPaymentMethods: (customer: CustomerTarget, query: PaymentMethodListQuery, allowed: OrganizationScope) =>
      listCustomerPaymentMethods(deps, customer, query, allowed),
    list: (query: CustomerListQuery, allowed: OrganizationScope) => listCustomerPage(deps, query, allowed),
    export: async (query: CustomerExportQuery, allowed: OrganizationScope): Promise<string> =>
      customersCsv(await repo.exportCustomerRows(deps.db, allowed, asList(query.organization_id) ?? null)),
    update: (id: string, input: CustomerUpdate, allowed: OrganizationScope) => editCustomer(deps, { id }, input, allowed),
    updateByExternalId: (externalId: string, input: CustomerUpdateExternalId, allowed: OrganizationScope) =>
      editCustomer(deps, { externalId }, externalUpdate(input), allowed),
  };
}
export type CustomerService = ReturnType<typeof createCustomerService>;
