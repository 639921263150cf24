import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { asList, paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import type { PaymentProcessor } from "../../adapters/payment-processors/payment-processor.ts";
import type { DisputeListQuery } from "./dispute-inputs.schemas.ts";
import { DisputeCloseFailed, DisputeNotOpenError } from "./disputes.errors.ts";
import { toDispute } from "./disputes.mapper.ts";
import { countDisputes, findDisputeEmbedded, findDisputeForUpdate, listDisputesEmbedded } from "./disputes.repository.ts";
import type { Dispute } from "./disputes.schemas.ts";
import { applyDisputeState } from "./disputes.steps.ts";

// Disputes are opened by the processor's events (`recordProcessorDispute`); this service reads them and accepts one.

export function createDisputeService(deps: Deps, processor: PaymentProcessor) {
  const { db } = deps;

  async function read(executor: Executor, id: string, allowed: OrganizationScope): Promise<Dispute> {
    const row = await findDisputeEmbedded(executor, id, allowed);
    if (!row) throw new ResourceNotFound();
    return toDispute(row, deps.now());
  }

  return {
    get: (id: string, allowed: OrganizationScope): Promise<Dispute> => read(db, id, allowed),

    list(query: DisputeListQuery, allowed: OrganizationScope): Promise<Page<Dispute>> {
      const filter = {
        allowed,
        organizationIds: asList(query.organization_id),
        orderIds: asList(query.order_id),
        statuses: asList(query.status),
      };
      return paginate(
        query,
        () => countDisputes(deps.readDb, filter),
        async (offset, limit) => {
          const now = deps.now();
          return (await listDisputesEmbedded(deps.readDb, filter, parseSorting(query.sorting), { offset, limit })).map((row) =>
            toDispute(row, now),
          );
        },
      );
    },

    /**
     * Concedes a dispute awaiting the merchant's response: the processor closes it (lost), then the
     * dispute takes that state as a processor event would, in one transaction under the dispute's
     * row lock, so of two racing accepts one closes it and the other finds it no longer open. A
     * processor's refusal writes nothing.
     */
    accept(id: string, allowed: OrganizationScope): Promise<Dispute> {
      return db.transaction().execute(async (trx) => {
        const locked = await findDisputeForUpdate(trx, id, allowed);
        if (!locked) throw new ResourceNotFound();
        if (locked.status !== "needs_response") throw new DisputeNotOpenError(id);
        const outcome = await processor.closeDispute({ disputeReference: locked.processor_dispute_id, disputeId: locked.id });
        if (outcome.status === "failed") throw new DisputeCloseFailed(outcome.message);
        const now = deps.now();
        // The processor closed it after every event stored so far, whichever clock runs ahead: its answer supersedes them.
        const closedAt = new Date(Math.max(now.getTime(), locked.processor_updated_at.getTime() + 1000));
        await applyDisputeState(trx, locked, { status: outcome.disputeStatus, processor_updated_at: closedAt }, now);
        return read(trx, id, allowed);
      });
    },
  };
}
export type DisputeService = ReturnType<typeof createDisputeService>;
