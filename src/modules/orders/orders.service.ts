import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { toStoredAddress, type StoredAddress } from "../../schema/address.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { RequestValidationError, ResourceNotFound, valueIssue, type ValidationIssue } from "../../http/errors.ts";
import { asList, pageWindow, parseSorting, toPage, type Page } from "../../schema/pagination.ts";
import { normalizeState } from "../../schema/subdivisions.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { OrderInvoiceAlreadyRequested } from "./orders.errors.ts";
import { splitEmbeddedOrder, toEmbeddedOrder } from "./orders.mapper.ts";
import * as repo from "./orders.repository.ts";
import { updateOrderEmbedded } from "./order-embedded.repository.ts";
import { DEFAULT_ORDER_EXPORT_COLUMNS, ordersCsv, ordersExportFilename } from "./orders.export.ts";
import type { Order, OrderExportQuery, OrderListQuery, OrderUpdate } from "./orders.schemas.ts";
import type { OrderItemRow, OrderRow } from "./orders.table.ts";

const groupBy = <T, K>(values: readonly T[], key: (value: T) => K): Map<K, T[]> => {
  const groups = new Map<K, T[]>();
  for (const value of values) groups.set(key(value), [...(groups.get(key(value)) ?? []), value]);
  return groups;
};

/** The orders' line items, in position order, by order id. */
export async function itemsByOrder(db: Executor, rows: readonly OrderRow[]): Promise<Map<string, OrderItemRow[]>> {
  return groupBy(
    await repo.itemsOfOrders(
      db,
      rows.map((row) => row.id),
    ),
    (item) => item.order_id,
  );
}

/**
 * Turns order rows into one read schema, in the rows' order: the portal's `CustomerOrder`, which
 * embeds other relations than the organization's `Order`.
 */
export type OrderPresenter<T> = (db: Executor, rows: readonly OrderRow[]) => Promise<T[]>;

/** The full read schema of one order, as the API and the `order.*` webhooks carry it. */
export async function readOrder(db: Executor, row: OrderRow): Promise<Order> {
  const embedded = await repo.findOrderEmbedded(db, row.id, { allowed: [row.organization_id] });
  if (!embedded) throw new Error(`order ${row.id} vanished while being read`);
  return toEmbeddedOrder(embedded);
}

/** Updates an order and answers its row and its full read schema, as readOrder gives it, in one statement. */
export async function updateAndReadOrder(
  db: Executor,
  id: string,
  values: Parameters<typeof updateOrderEmbedded>[2],
): Promise<{ row: OrderRow; order: Order }> {
  return splitEmbeddedOrder(await updateOrderEmbedded(db, id, values));
}

/** Records `order.updated` with the order as it is now, in the caller's transaction; returns that order. */
export async function publishOrderUpdated(db: Executor, row: OrderRow, now: Date): Promise<Order> {
  const order = await readOrder(db, row);
  await recordWebhookEvent(db, { organizationId: row.organization_id, type: "order.updated", data: order, now });
  return order;
}

/**
 * The hosted service's rule: once an order has an address, its country and state stay; both failures are
 * reported together. A US or CA state is compared in its normalized `US-NY` form.
 */
function billingAddressChange(current: StoredAddress | null, next: StoredAddress | null): StoredAddress | null {
  if (next === null) return null;
  const loc = ["body", "billing_address"];
  const sameCountry = current === null || current.country === next.country;
  const normalized = sameCountry ? normalizeState(next, loc) : next;
  if (current === null) return normalized;
  const issues: ValidationIssue[] = [];
  if (!sameCountry) issues.push(valueIssue([...loc, "country"], "Country cannot be changed", next.country));
  if ((normalized.state ?? null) !== (current.state ?? null))
    issues.push(valueIssue([...loc, "state"], "State cannot be changed", next.state));
  if (issues.length) throw new RequestValidationError(issues);
  return normalized;
}

export function createOrderService(deps: Deps) {
  const { db } = deps;

  type PageQuery = Pick<OrderListQuery, "page" | "limit" | "sorting">;

  async function pageAs<T>(filter: repo.OrderFilter, query: PageQuery, present: OrderPresenter<T>): Promise<Page<T>> {
    const [total, rows] = await Promise.all([
      repo.countOrders(db, filter),
      repo.listOrders(db, filter, parseSorting(query.sorting), pageWindow(query)),
    ]);
    return toPage(await present(db, rows), total, query);
  }
  /** The organization's view: the page, its relations and the count in one statement. */
  async function page(filter: repo.OrderFilter, query: PageQuery): Promise<Page<Order>> {
    const { rows, total } = await repo.pageOrdersEmbedded(deps.readDb, filter, parseSorting(query.sorting), pageWindow(query));
    return toPage(rows.map(toEmbeddedOrder), total, query);
  }

  async function getAs<T>(id: string, visibility: repo.OrderVisibility, present: OrderPresenter<T>): Promise<T> {
    const row = await repo.findOrder(db, id, visibility);
    if (!row) throw new ResourceNotFound();
    return (await present(db, [row]))[0]!;
  }

  /**
   * Billing name and address, until an invoice is requested: the interface makes the invoice
   * permanent, so what it prints must not drift from the order afterwards. `order.updated` always
   * carries the organization's view; `respond` builds the caller's answer in the same transaction.
   */
  async function updateAs<T>(
    id: string,
    input: OrderUpdate,
    visibility: repo.OrderVisibility,
    respond: (db: Executor, row: OrderRow, published: Order) => Promise<T> | T,
  ): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const current = await repo.findOrderForUpdate(trx, id, visibility);
      if (!current) throw new ResourceNotFound();
      if (current.invoice_requested_at !== null || current.invoice_path !== null) throw new OrderInvoiceAlreadyRequested(current.id);
      const now = deps.now();
      const address =
        input.billing_address === undefined
          ? undefined
          : billingAddressChange(current.billing_address, input.billing_address && toStoredAddress(input.billing_address));
      const row = await repo.updateOrder(trx, current.id, {
        modified_at: now,
        ...(input.billing_name === undefined ? {} : { billing_name: input.billing_name }),
        ...(address === undefined ? {} : { billing_address: address === null ? null : JSON.stringify(address) }),
      });
      return respond(trx, row, await publishOrderUpdated(trx, row, now));
    });
  }

  return {
    page,
    pageAs,
    getAs,
    updateAs,

    list(query: OrderListQuery, allowed: OrganizationScope): Promise<Page<Order>> {
      return page(
        {
          allowed,
          organizationIds: asList(query.organization_id),
          productIds: asList(query.product_id),
          billingTypes: asList(query.product_billing_type),
          discountIds: asList(query.discount_id),
          customerIds: asList(query.customer_id),
          externalCustomerIds: asList(query.external_customer_id),
          checkoutIds: asList(query.checkout_id),
          subscriptionIds: asList(query.subscription_id),
          statuses: asList(query.status),
          createdAfter: query.created_after === undefined ? undefined : new Date(query.created_after),
          createdBefore: query.created_before === undefined ? undefined : new Date(query.created_before),
          metadata: query.metadata,
        },
        query,
      );
    },

    /** The CSV export: the filters, every matching order (newest first), the chosen columns in order; and its file name. */
    async export(query: OrderExportQuery, allowed: OrganizationScope): Promise<{ filename: string; csv: string }> {
      const timezone = query.timezone ?? "UTC";
      const createdAfter = query.created_after === undefined ? null : new Date(query.created_after);
      const createdBefore = query.created_before === undefined ? null : new Date(query.created_before);
      // Named first: an unknown zone is refused before anything is read.
      const filename = ordersExportFilename({ after: createdAfter, before: createdBefore }, timezone);
      const rows = await repo.exportOrderRows(deps.readDb, {
        allowed,
        organizationIds: asList(query.organization_id),
        productIds: asList(query.product_id),
        statuses: asList(query.status),
        createdAfter: createdAfter ?? undefined,
        createdBefore: createdBefore ?? undefined,
      });
      return { filename, csv: ordersCsv(rows, asList(query.columns) ?? DEFAULT_ORDER_EXPORT_COLUMNS, timezone) };
    },

    async get(id: string, visibility: repo.OrderVisibility): Promise<Order> {
      const row = await repo.findOrderEmbedded(db, id, visibility);
      if (!row) throw new ResourceNotFound();
      return toEmbeddedOrder(row);
    },

    update: (id: string, input: OrderUpdate, visibility: repo.OrderVisibility): Promise<Order> =>
      updateAs(id, input, visibility, (_db, _row, published) => published),
  };
}
export type OrderService = ReturnType<typeof createOrderService>;
