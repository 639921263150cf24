import type { Deps } from "../../context.ts";
import {
  findGrantForUpdate,
  grantsEmbedded,
  updateGrantProperties,
  type GrantEmbeddedRow,
  type GrantFilter,
} from "../benefits/benefits.steps.ts";
import type { Executor } from "../../db/database.ts";
import type { Principal } from "../../http/auth.ts";
import { NotPermitted, RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { asList, type Page } from "../../schema/pagination.ts";
import { publishGrantEvents } from "../benefits/benefits.steps.ts";
import { pageGrants } from "../benefits/benefits.steps.ts";
import { findCustomer } from "../customers/customers.steps.ts";
import { toCheckoutOrganization } from "../organizations/organizations.mapper.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { toCustomerBenefitGrant } from "./portal-benefit-grants.mapper.ts";
import type { CustomerBenefitGrant, CustomerBenefitGrantListQuery, CustomerBenefitGrantUpdate } from "./portal-benefit-grants.schemas.ts";
import { toPortalCustomer } from "./portal-customers.service.ts";
import { portalCustomerOf } from "./portal-session.ts";

/**
 * The grants a session sees: its customer's, of public benefits. A member session sees only the
 * grants made for its member (the hosted service's rule, even for the owner).
 */
function visibleTo(principal: Principal): GrantFilter {
  const { organizationId, customerId } = portalCustomerOf(principal);
  return {
    allowed: [organizationId],
    customerId,
    ...(principal.kind === "member" ? { memberIds: [principal.memberId] } : {}),
  };
}

/** The portal's view of each row: the session's customer and the seller, each read once. */
async function present(db: Executor, principal: Principal, rows: readonly GrantEmbeddedRow[]): Promise<CustomerBenefitGrant[]> {
  if (rows.length === 0) return [];
  const { organizationId, customerId } = portalCustomerOf(principal);
  const [customer, organization] = await Promise.all([
    findCustomer(db, customerId, [organizationId]),
    findOrganization(db, organizationId, null),
  ]);
  if (!customer || !organization) throw new ResourceNotFound();
  const portalCustomer = toPortalCustomer(customer);
  const seller = toCheckoutOrganization(organization);
  return rows.map((row) => toCustomerBenefitGrant(row, portalCustomer, seller));
}

/** The properties an update sets, merged over the stored ones; null when the type has none to set. */
function updatedProperties(stored: Record<string, unknown>, input: CustomerBenefitGrantUpdate): Record<string, unknown> | null {
  if (!("properties" in input)) return null;
  if ("account_id" in input.properties) {
    // This service links no OAuth account to a customer, so only clearing the account can succeed.
    if (input.properties.account_id !== null)
      throw new RequestValidationError([
        fieldIssue(["body", "properties", "account_id"], "OAuth account does not exist.", input.properties.account_id),
      ]);
    return { ...stored, ...input.properties };
  }
  // A new invitee makes the pending invitation moot.
  const { invite_id: _id, invite_url: _url, ...rest } = stored;
  return stored.invited_email === input.properties.invited_email ? { ...stored } : { ...rest, ...input.properties };
}

/** The portal's benefit grant routes: the session's own grants, and the properties a customer may set. */
export function createPortalBenefitGrantService(deps: Deps) {
  const { db } = deps;

  async function read(executor: Executor, id: string, principal: Principal): Promise<GrantEmbeddedRow> {
    const [row] = await grantsEmbedded(executor, [id], visibleTo(principal));
    if (!row) throw new ResourceNotFound();
    return row;
  }

  return {
    async list(query: CustomerBenefitGrantListQuery, principal: Principal): Promise<Page<CustomerBenefitGrant>> {
      const visible = visibleTo(principal);
      const filter: GrantFilter = {
        ...visible,
        notRevoked: true,
        query: query.query,
        types: asList(query.type),
        benefitIds: asList(query.benefit_id),
        checkoutIds: asList(query.checkout_id),
        orderIds: asList(query.order_id),
        subscriptionIds: asList(query.subscription_id),
        memberIds: [...(visible.memberIds ?? []), ...(asList(query.member_id) ?? [])],
      };
      return pageGrants(db, filter, query, (executor, rows) => present(executor, principal, rows));
    },

    async get(id: string, principal: Principal): Promise<CustomerBenefitGrant> {
      return (await present(db, principal, [await read(db, id, principal)]))[0]!;
    },

    /**
     * Checks in the hosted service's order: revoked (403), then a body of another benefit type (422). The
     * grant's properties merge with what the customer set, in the transaction of its
     * `benefit_grant.updated`; a type with nothing to set changes nothing.
     */
    async update(id: string, input: CustomerBenefitGrantUpdate, principal: Principal): Promise<CustomerBenefitGrant> {
      return db.transaction().execute(async (trx) => {
        const current = await read(trx, id, principal);
        const locked = await findGrantForUpdate(trx, id);
        if (!locked || !current.benefit) throw new ResourceNotFound();
        if (locked.revoked_at !== null) throw new NotPermitted("Cannot update a revoked benefit grant.");
        if (input.benefit_type !== current.benefit.type)
          throw new RequestValidationError([
            fieldIssue(["body", "benefit_type"], "Benefit type must match the existing granted benefit type.", input.benefit_type),
          ]);
        const properties = updatedProperties(locked.properties, input);
        if (properties !== null) {
          const now = deps.now();
          await updateGrantProperties(trx, id, properties, now);
          await publishGrantEvents(trx, "benefit_grant.updated", [id], now, new Map([[id, locked.properties]]));
        }
        return (await present(trx, principal, [await read(trx, id, principal)]))[0]!;
      });
    },
  };
}
export type PortalBenefitGrantService = ReturnType<typeof createPortalBenefitGrantService>;
