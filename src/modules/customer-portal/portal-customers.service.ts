import type { Deps } from "../../context.ts";
import { findCustomer, findCustomerForUpdate, updateCustomer } from "../customers/customers.steps.ts";
import { toStoredAddress, type AddressInput, type StoredAddress } from "../../schema/address.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue, missingIssue } from "../../http/errors.ts";
import { normalizeState } from "../../schema/subdivisions.ts";
import { requireTaxId, type TaxIdFormat } from "../../adapters/tax-engine/tax-id.ts";
import { toCustomer } from "../customers/customers.mapper.ts";
import { CUSTOMER_TAX_ID_FIELDS } from "../customers/customers.steps.ts";
import type { CustomerRow } from "../customers/customers.table.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { findPaymentMethod } from "../payments/payments.steps.ts";
import type { CustomerPortalCustomer, CustomerPortalCustomerUpdate } from "./portal-customers.schemas.ts";
import type { portalCustomerOf } from "./portal-session.ts";

type PortalCustomer = ReturnType<typeof portalCustomerOf>;

/** The reference trims portal strings and reads "" as no value. */
const clean = (value: string | null | undefined): string | null | undefined => (typeof value === "string" ? value.trim() || null : value);

function cleanAddress(input: AddressInput): StoredAddress {
  const address = toStoredAddress(input);
  return {
    ...address,
    line1: clean(address.line1) ?? null,
    line2: clean(address.line2) ?? null,
    postal_code: clean(address.postal_code) ?? null,
    city: clean(address.city) ?? null,
    state: clean(address.state) ?? null,
  };
}

export function toPortalCustomer(row: CustomerRow): CustomerPortalCustomer {
  return {
    created_at: row.created_at.toISOString(),
    modified_at: row.modified_at?.toISOString() ?? null,
    id: row.id,
    email: row.email,
    email_verified: row.email_verified,
    name: row.name,
    billing_name: row.billing_name ?? row.name,
    billing_address: row.billing_address,
    tax_id: row.tax_id ? [row.tax_id[0], row.tax_id[1] as TaxIdFormat] : null,
    // No OAuth providers are linked by this service.
    oauth_accounts: {},
    default_payment_method_id: row.default_payment_method_id,
    type: row.type,
    locale: row.locale,
  };
}

export function createPortalCustomerService(deps: Deps) {
  return {
    async get(session: PortalCustomer): Promise<CustomerPortalCustomer> {
      const row = await findCustomer(deps.db, session.customerId, [session.organizationId]);
      if (!row) throw new ResourceNotFound();
      return toPortalCustomer(row);
    },

    async update(session: PortalCustomer, input: CustomerPortalCustomerUpdate): Promise<CustomerPortalCustomer> {
      if (input.billing_address === null) {
        throw new RequestValidationError([
          fieldIssue(["body", "billing_address"], "Customer billing address cannot be reset to null once set.", null, "missing"),
        ]);
      }
      if (input.default_payment_method_id === null) throw new RequestValidationError([missingIssue(["body", "default_payment_method_id"])]);
      const newAddress = input.billing_address
        ? normalizeState(cleanAddress(input.billing_address), ["body", "billing_address"])
        : undefined;
      const billingName = clean(input.billing_name);
      const taxIdInput = input.tax_id === undefined ? undefined : clean(input.tax_id);
      return deps.db.transaction().execute(async (trx) => {
        const current = await findCustomerForUpdate(trx, session.customerId, [session.organizationId]);
        if (!current) throw new ResourceNotFound();
        // A null default was refused above: a customer keeps a default once it has one.
        const defaultMethodId = input.default_payment_method_id ?? undefined;
        if (defaultMethodId !== undefined && !(await findPaymentMethod(trx, defaultMethodId, current.id))) {
          throw new RequestValidationError([
            fieldIssue(["body", "default_payment_method_id"], "Payment method not found.", defaultMethodId, "invalid"),
          ]);
        }
        const address = newAddress ?? current.billing_address;
        // A new tax ID is checked against the resulting address; a new address re-checks the stored one.
        const taxId =
          taxIdInput !== undefined
            ? taxIdInput && requireTaxId(taxIdInput, address?.country, CUSTOMER_TAX_ID_FIELDS)
            : current.tax_id && newAddress
              ? requireTaxId(current.tax_id[0], address?.country, CUSTOMER_TAX_ID_FIELDS)
              : current.tax_id;
        const now = deps.now();
        const row = await updateCustomer(trx, current.id, {
          modified_at: now,
          ...(billingName ? { billing_name: billingName } : {}),
          ...(defaultMethodId !== undefined ? { default_payment_method_id: defaultMethodId } : {}),
          billing_address: address ? JSON.stringify(address) : null,
          tax_id: taxId ? JSON.stringify(taxId) : null,
        });
        await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "customer.updated", data: toCustomer(row), now });
        return toPortalCustomer(row);
      });
    },
  };
}
export type PortalCustomerService = ReturnType<typeof createPortalCustomerService>;
