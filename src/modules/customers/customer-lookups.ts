import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { lockBuyerIdentities } from "./customer-links.repository.ts";
import * as repo from "./customers.repository.ts";
import type { CustomerRow } from "./customers.table.ts";

// How the routes name a customer (`/v1/customers/{id}`, `/v1/customers/external/{external_id}`),
// shared by the reads, the updates and the deletion.

export type CustomerTarget = { id: string } | { externalId: string };

/** A live customer of the caller's organizations, by id or external id; 404 otherwise. */
export async function findVisibleCustomer(db: Executor, target: CustomerTarget, allowed: OrganizationScope) {
  const row =
    "id" in target ? await repo.findCustomer(db, target.id, allowed) : await repo.findCustomerByExternalId(db, target.externalId, allowed);
  if (!row) throw new ResourceNotFound();
  return row;
}

/** The same customer, its row locked for the caller's transaction; 404 when none (or deleted while waiting). */
export async function lockVisibleCustomer(db: Executor, target: CustomerTarget, allowed: OrganizationScope): Promise<CustomerRow> {
  const row =
    "id" in target
      ? await repo.findCustomerForUpdate(db, target.id, allowed)
      : await repo.findCustomerByExternalIdForUpdate(db, target.externalId, allowed);
  if (!row) throw new ResourceNotFound();
  return row;
}

/** The advisory-lock names of a buyer's identities (its email, its external ID), in the fixed order every locker takes them. */
export const buyerIdentities = (email: string, externalId: string | null): string[] =>
  [`email:${email.toLowerCase()}`, ...(externalId ? [`external:${externalId}`] : [])].sort();

/**
 * Takes the identity locks a purchase takes before it links its buyer, so a checkout completing
 * meanwhile either links the customer before it is deleted or, after, finds it gone.
 */
export const lockCustomerIdentities = (db: Executor, row: Pick<CustomerRow, "organization_id" | "email" | "external_id">) =>
  lockBuyerIdentities(db, row.organization_id, buyerIdentities(row.email, row.external_id));
