import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { asList, paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import type { DocumentLink, OrderDocumentService } from "../orders/orders.steps.ts";
import type { RefundListQuery } from "./refund-inputs.schemas.ts";
import { toRefund } from "./refunds.mapper.ts";
import { countRefunds, findRefund, listRefunds } from "./refunds.repository.ts";
import type { Refund } from "./refunds.schemas.ts";

// A refund is made by the refund-order flow (`flows/refund-order.ts`); this service reads them.

export function createRefundService(deps: Deps, documents: OrderDocumentService) {
  const { db } = deps;

  return {
    /** The credit note of a refund the caller may see (docs/decisions.md, "Credit notes"); null while it renders. */
    async creditNote(id: string, allowed: OrganizationScope): Promise<DocumentLink | null> {
      const refund = await findRefund(db, id, allowed);
      if (!refund) throw new ResourceNotFound();
      return documents.creditNote(refund.id);
    },

    list(query: RefundListQuery, allowed: OrganizationScope): Promise<Page<Refund>> {
      const filter = {
        allowed,
        ids: asList(query.id),
        organizationIds: asList(query.organization_id),
        orderIds: asList(query.order_id),
        subscriptionIds: asList(query.subscription_id),
        customerIds: asList(query.customer_id),
        externalCustomerIds: asList(query.external_customer_id),
        succeeded: query.succeeded,
      };
      return paginate(
        query,
        () => countRefunds(deps.readDb, filter),
        async (offset, limit) => (await listRefunds(deps.readDb, filter, parseSorting(query.sorting), { offset, limit })).map(toRefund),
      );
    },
  };
}
export type RefundService = ReturnType<typeof createRefundService>;
