import type { Executor } from "../../db/database.ts";
import { BadRequest, ResourceNotFound, valueError } from "../../http/errors.ts";
import { findOrder, findOrderForUpdate } from "../orders/orders.steps.ts";
import type { SeatContainer } from "./customer-seats.repository.ts";
import { seatDependentReads } from "./seat-dependent-reads.ts";
import type { OrganizationScope } from "../../http/auth.ts";

export type ContainerRef = SeatContainer;

/** Who may see a seat: the organizations of the caller, and for the portal the billing customer itself. */
export interface SeatScope {
  allowed: OrganizationScope;
  customerId?: string;
}

/** A container as the seat rules read it: whose, which product, how many seats. */
export interface LockedContainer {
  ref: SeatContainer;
  organizationId: string;
  /** The billing customer, who bought the seats. */
  customerId: string;
  productId: string | null;
  seats: number;
  /** An order not paid yet (its seats cannot be given). */
  unpaid: boolean;
}

const BOTH_OR_NEITHER = "Either subscription_id or order_id must be provided, not both.";

/**
 * The container a request names: exactly one of `subscription_id` and `order_id`. Both or neither
 * in a body is a 422 on the body (a model rule, as the hosted service validates it); in a list's
 * query, its 400.
 */
export function containerRefOf(
  input: { subscription_id?: string | null; order_id?: string | null },
  where: "body" | "query",
): ContainerRef {
  const { subscription_id: subscriptionId, order_id: orderId } = input;
  if (subscriptionId && !orderId) return { kind: "subscription", id: subscriptionId };
  if (orderId && !subscriptionId) return { kind: "order", id: orderId };
  throw where === "body" ? valueError(["body"], BOTH_OR_NEITHER, input) : new BadRequest(BOTH_OR_NEITHER);
}

async function container(db: Executor, ref: ContainerRef, scope: SeatScope, lock: boolean): Promise<LockedContainer> {
  const visibility = { allowed: scope.allowed, ...(scope.customerId !== undefined && { customerId: scope.customerId }) };
  if (ref.kind === "subscription") {
    const { findSubscription, findSubscriptionForUpdate } = seatDependentReads();
    const row = lock ? await findSubscriptionForUpdate(db, ref.id, visibility) : await findSubscription(db, ref.id, visibility);
    if (!row) throw new ResourceNotFound("Subscription not found");
    return {
      ref,
      organizationId: row.organization_id,
      customerId: row.customer_id,
      productId: row.product_id,
      seats: row.seats ?? 0,
      unpaid: false,
    };
  }
  const row = lock ? await findOrderForUpdate(db, ref.id, visibility) : await findOrder(db, ref.id, visibility);
  if (!row) throw new ResourceNotFound("Order not found");
  const unpaid = row.status === "draft" || row.status === "pending";
  return {
    ref,
    organizationId: row.organization_id,
    customerId: row.customer_id,
    productId: row.product_id,
    seats: row.seats ?? 0,
    unpaid,
  };
}

/**
 * The container, its row locked for an assignment (which serializes assignments against each other
 * and against a change of its seat count); an order must be paid first.
 */
export async function lockContainer(db: Executor, ref: ContainerRef, scope: SeatScope): Promise<LockedContainer> {
  const found = await container(db, ref, scope, true);
  if (found.unpaid) throw new BadRequest("Order must be paid before assigning seats");
  return found;
}

export const readContainer = (db: Executor, ref: ContainerRef, scope: SeatScope): Promise<LockedContainer> =>
  container(db, ref, scope, false);
