import type { Deps } from "../../context.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { asList, paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { toPayment } from "./payments.mapper.ts";
import { countPaymentViews, findPaymentView, listPaymentViews, type PaymentRelations } from "./payments.repository.ts";
import type { Payment, PaymentListQuery } from "./payments.schemas.ts";

/**
 * Reads of every payment attempt recorded: checkouts, renewals and retries, settled or not; the
 * orders' and customers' parts of the reads come from their modules (`PaymentRelations`).
 */
export function createPaymentService(deps: Deps, relations: PaymentRelations) {
  const { db } = deps;
  return {
    list(query: PaymentListQuery, allowed: OrganizationScope): Promise<Page<Payment>> {
      const filter = {
        allowed,
        organizationIds: asList(query.organization_id),
        checkoutIds: asList(query.checkout_id),
        orderIds: asList(query.order_id),
        customerIds: asList(query.customer_id),
        statuses: asList(query.status),
        methods: asList(query.method),
        customerEmails: asList(query.customer_email),
      };
      return paginate(
        query,
        () => countPaymentViews(deps.readDb, filter, relations),
        async (offset, limit) =>
          (await listPaymentViews(deps.readDb, filter, relations, parseSorting(query.sorting), { offset, limit })).map(toPayment),
      );
    },

    async get(id: string, allowed: OrganizationScope): Promise<Payment> {
      const row = await findPaymentView(db, id, allowed, relations);
      if (!row) throw new ResourceNotFound();
      return toPayment(row);
    },
  };
}
export type PaymentService = ReturnType<typeof createPaymentService>;
