import { randomBytes } from "node:crypto";
import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { BadRequest, NotPermitted, ResourceNotFound, valueError } from "../../http/errors.ts";
import { hashToken } from "../../values/tokens.ts";
import { findCustomerForUpdate, findLiveCustomer, openCustomerSession } from "../customers/customers.steps.ts";
import { findOrganization } from "../organizations/organizations.steps.ts";
import { findOrderOfCheckout } from "../orders/orders.steps.ts";
import { findProductWithRelations } from "../products/products.steps.ts";
import type { OrganizationRow } from "../organizations/organizations.table.ts";
import { resolveHolder, type HolderInput } from "./seat-holders.ts";
import { sendInvitation } from "./seat-invitations.ts";
import { lockContainer, readContainer, type ContainerRef, type LockedContainer, type SeatScope } from "./seat-containers.ts";
import * as repo from "./customer-seats.repository.ts";
import {
  SEAT_METADATA_MAX_BYTES,
  type CustomerSeat,
  type CustomerSeatClaimResponse,
  type SeatClaimInfo,
  type SeatsList,
} from "./customer-seats.schemas.ts";
import { publishSeat, revokeSeat, seatsJson, syncSeat } from "./customer-seats.steps.ts";
import type { CustomerSeatRow } from "./customer-seats.table.ts";

const SEATS_OFF = "Seat-based pricing is not enabled for this organization";
const INVALID_TOKEN = "Invalid or expired invitation token";
const SEAT_NOT_FOUND = "Seat not found";
/** How long an invitation lasts (the hosted service's 24 hours); a resend does not extend it. */
export const INVITATION_TTL_MS = 24 * 60 * 60 * 1000;

/** The organization of a seat route, refused (403) unless seat-based pricing is on. */
export async function seatOrganization(db: Executor, organizationId: string): Promise<OrganizationRow> {
  const organization = await findOrganization(db, organizationId, null);
  if (!organization || organization.feature_settings.seat_based_pricing_enabled !== true) throw new NotPermitted(SEATS_OFF);
  return organization;
}

/** A fresh invitation token (as long as the hosted service's `token_urlsafe(32)`) and the hash stored in its place. */
function mintToken(secret: string): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashToken(secret, token) };
}

export function createCustomerSeatService(deps: Deps) {
  const seatJson = async (db: Executor, row: CustomerSeatRow): Promise<CustomerSeat> => (await seatsJson(db, [row]))[0]!;

  /** The product a seat gives: its name for the emails, its benefits for the holder. */
  async function productOf(db: Executor, container: LockedContainer) {
    const product = container.productId ? await findProductWithRelations(db, container.productId, null) : undefined;
    if (!product) throw new Error(`seat container ${container.ref.id} without its product`);
    return product;
  }

  /**
   * Claims a pending seat: its holder's grants (member-scoped, under the billing customer; restored
   * when the same holder had the seat before) and `customer_seat.claimed`.
   */
  async function claimSeat(trx: Executor, row: CustomerSeatRow, container: LockedContainer, now: Date): Promise<CustomerSeatRow> {
    const claimed = await repo.updateSeat(trx, row.id, {
      status: "claimed",
      claimed_at: now,
      invitation_token_hash: null,
      modified_at: now,
    });
    await syncSeat(trx, claimed, (await productOf(trx, container)).benefits, now);
    await publishSeat(trx, claimed, "customer_seat.claimed", now);
    return claimed;
  }

  /** A seat the caller may act on, locked, in an organization with seats on; 404 otherwise. */
  async function lockSeat(trx: Executor, seatId: string, scope: SeatScope): Promise<CustomerSeatRow> {
    const row = await repo.findSeatForUpdate(trx, seatId, scope.allowed);
    if (!row || (scope.customerId !== undefined && row.customer_id !== scope.customerId)) throw new ResourceNotFound(SEAT_NOT_FOUND);
    await seatOrganization(trx, row.organization_id);
    return row;
  }

  /** The pending seat of a token, unexpired; null otherwise. */
  async function pendingSeatOf(db: Executor, token: string, lock: boolean): Promise<CustomerSeatRow | null> {
    const hash = hashToken(deps.secret, token);
    const row = lock ? await repo.findSeatByTokenHashForUpdate(db, hash) : await repo.findSeatByTokenHash(db, hash);
    const expired = row?.invitation_token_expires_at != null && row.invitation_token_expires_at <= deps.now();
    return row && !expired && row.member_id && row.customer_id ? row : null;
  }

  const containerOfSeat = (db: Executor, row: CustomerSeatRow) =>
    readContainer(db, row.subscription_id ? { kind: "subscription", id: row.subscription_id } : { kind: "order", id: row.order_id! }, {
      allowed: null,
    });

  return {
    /**
     * Gives a seat of a subscription or paid order to a member of the billing customer (found or
     * added by email or id), under the container's row lock so that the count and the one-seat-per-
     * holder rule hold against parallel assignments. Invites by email unless `immediate_claim`.
     */
    async assign(
      ref: ContainerRef,
      input: HolderInput & { metadata?: Record<string, unknown> | null; immediate_claim?: boolean },
      scope: SeatScope,
    ): Promise<CustomerSeat> {
      if (input.metadata && Buffer.byteLength(JSON.stringify(input.metadata)) > SEAT_METADATA_MAX_BYTES) {
        throw valueError(["body", "metadata"], `Metadata must be at most ${SEAT_METADATA_MAX_BYTES} bytes of JSON.`, input.metadata);
      }
      return deps.db.transaction().execute(async (trx) => {
        const now = deps.now();
        const container = await lockContainer(trx, ref, scope);
        const organization = await seatOrganization(trx, container.organizationId);
        const billing = await findCustomerForUpdate(trx, container.customerId, null);
        if (!billing) throw new ResourceNotFound("Customer not found");
        const member = await resolveHolder(trx, organization, billing, input, now);
        if (await repo.findLiveSeatOfMember(trx, container.ref, member.id))
          throw new BadRequest(`Seat already assigned to customer ${member.email}`);
        if ((await repo.countLiveSeats(trx, container.ref)) >= container.seats)
          throw new BadRequest(`No available seats for ${container.ref.id}`);
        const invitation = input.immediate_claim ? null : mintToken(deps.secret);
        const values = {
          modified_at: now,
          status: "pending" as const,
          customer_id: billing.id,
          member_id: member.id,
          email: member.email,
          invitation_token_hash: invitation?.hash ?? null,
          invitation_token_expires_at: invitation ? new Date(now.getTime() + INVITATION_TTL_MS) : null,
          claimed_at: null,
          revoked_at: null,
          seat_metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        };
        const reusable = await repo.findReusableSeatForUpdate(trx, container.ref);
        const row = reusable
          ? await repo.updateSeat(trx, reusable.id, values)
          : await repo.insertSeat(trx, {
              ...values,
              created_at: now,
              modified_at: null,
              organization_id: organization.id,
              subscription_id: container.ref.kind === "subscription" ? container.ref.id : null,
              order_id: container.ref.kind === "order" ? container.ref.id : null,
            });
        await publishSeat(trx, row, "customer_seat.assigned", now);
        if (!invitation) return seatJson(trx, await claimSeat(trx, row, container, now));
        const product = await productOf(trx, container);
        await sendInvitation(trx, deps, { organization, billing, seat: row, token: invitation.token, productName: product.name, now });
        return seatJson(trx, row);
      });
    },

    /** The purchase a checkout produced: its subscription, else its order (the portal's `checkout_id`). */
    async containerOfCheckout(checkoutId: string, scope: SeatScope): Promise<ContainerRef> {
      const order = await findOrderOfCheckout(deps.db, checkoutId);
      const visible =
        order &&
        (scope.allowed === null || scope.allowed.includes(order.organization_id)) &&
        (scope.customerId ?? order.customer_id) === order.customer_id;
      if (!order || !visible) throw new ResourceNotFound("Checkout not found");
      return order.subscription_id ? { kind: "subscription", id: order.subscription_id } : { kind: "order", id: order.id };
    },

    /** The seats of a subscription or order, with how many are left. */
    async list(ref: ContainerRef, scope: SeatScope): Promise<SeatsList> {
      const container = await readContainer(deps.readDb, ref, scope);
      await seatOrganization(deps.readDb, container.organizationId);
      const rows = await repo.listSeats(deps.readDb, container.ref);
      const live = rows.filter((row) => row.status !== "revoked").length;
      return {
        seats: await seatsJson(deps.readDb, rows),
        available_seats: Math.max(container.seats - live, 0),
        total_seats: container.seats,
      };
    },

    /** Revokes a seat (its holder's grants with it); an already revoked seat is answered as it is. */
    async revoke(seatId: string, scope: SeatScope): Promise<CustomerSeat> {
      return deps.db.transaction().execute(async (trx) => {
        const row = await lockSeat(trx, seatId, scope);
        return seatJson(trx, row.status === "revoked" ? row : await revokeSeat(trx, row, deps.now()));
      });
    },

    /**
     * Emails the invitation again. Only the token's hash is kept, so the same token cannot be sent
     * twice: a new one replaces it (the old link stops working) and the expiry stays where it was.
     */
    async resend(seatId: string, scope: SeatScope): Promise<CustomerSeat> {
      return deps.db.transaction().execute(async (trx) => {
        const now = deps.now();
        const row = await lockSeat(trx, seatId, scope);
        if (row.status !== "pending") throw new BadRequest("Seat is not in pending status");
        const expires = row.invitation_token_expires_at;
        if (!row.invitation_token_hash || !row.email || !row.customer_id || !expires || expires <= now) throw new BadRequest(INVALID_TOKEN);
        const organization = await seatOrganization(trx, row.organization_id);
        // Read, not locked: a member's deletion locks the customer before its seats, so locking it after the seat could deadlock.
        const billing = await findLiveCustomer(trx, row.organization_id, { id: row.customer_id });
        if (!billing) throw new BadRequest(INVALID_TOKEN);
        const invitation = mintToken(deps.secret);
        const updated = await repo.updateSeat(trx, row.id, { invitation_token_hash: invitation.hash, modified_at: now });
        const product = await productOf(trx, await containerOfSeat(trx, row));
        await sendInvitation(trx, deps, { organization, billing, seat: updated, token: invitation.token, productName: product.name, now });
        return seatJson(trx, updated);
      });
    },

    /** What an invitation is for, without touching it (mail scanners open links). */
    async claimInfo(token: string): Promise<SeatClaimInfo> {
      const row = await pendingSeatOf(deps.db, token, false);
      if (!row) throw new ResourceNotFound(INVALID_TOKEN);
      const organization = await seatOrganization(deps.db, row.organization_id);
      const product = await productOf(deps.db, await containerOfSeat(deps.db, row));
      return {
        product_name: product.name,
        product_id: product.id,
        organization_name: organization.name,
        organization_slug: organization.slug,
        customer_email: row.email!,
        can_claim: true,
      };
    },

    /** Claims the seat of a token (used once) and opens a portal session for its holder. */
    async claim(token: string): Promise<CustomerSeatClaimResponse> {
      return deps.db.transaction().execute(async (trx) => {
        const now = deps.now();
        const row = await pendingSeatOf(trx, token, true);
        if (!row) throw new BadRequest(INVALID_TOKEN);
        await seatOrganization(trx, row.organization_id);
        const claimed = await claimSeat(trx, row, await containerOfSeat(trx, row), now);
        const session = await openCustomerSession(trx, deps, {
          organizationId: row.organization_id,
          customerId: claimed.customer_id!,
          memberId: claimed.member_id,
          returnUrl: null,
          now,
        });
        return { seat: await seatJson(trx, claimed), customer_session_token: session.token };
      });
    },
  };
}
export type CustomerSeatService = ReturnType<typeof createCustomerSeatService>;
