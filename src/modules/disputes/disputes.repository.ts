import { given, type SortCriterion } from "../../schema/pagination.ts";
import type { Expression, ExpressionBuilder, Insertable, SqlBool, Updateable } from "kysely";
import type { Database, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { customerJson } from "../customers/customers.steps.ts";
import type { DisputeRow, DisputesTable, DisputeStatus } from "./disputes.table.ts";

export type DisputeSortKey = "created_at" | "amount";

export interface DisputeFilter {
  allowed: OrganizationScope;
  ids?: readonly string[];
  organizationIds?: readonly string[];
  orderIds?: readonly string[];
  statuses?: readonly DisputeStatus[];
}

type DisputesScope = ExpressionBuilder<Database & { d: DisputesTable }, "d">;

function matches(eb: DisputesScope, filter: DisputeFilter): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filter.allowed !== null) conditions.push(eb("d.organization_id", "in", filter.allowed));
  if (given(filter.ids)) conditions.push(eb("d.id", "in", filter.ids));
  if (given(filter.organizationIds)) conditions.push(eb("d.organization_id", "in", filter.organizationIds));
  if (given(filter.orderIds)) conditions.push(eb("d.order_id", "in", filter.orderIds));
  if (given(filter.statuses)) conditions.push(eb("d.status", "in", filter.statuses));
  return eb.and(conditions);
}

/** The disputes matching, each with its customer as a JSON column (the `Dispute` embeds it). */
const selectEmbedded = (db: Executor, filter: DisputeFilter) =>
  db
    .selectFrom("disputes as d")
    .selectAll("d")
    .select((eb) => customerJson(eb.ref("d.customer_id")).as("customer"))
    .where((eb) => matches(eb, filter));

export type DisputeEmbeddedRow = NonNullable<Awaited<ReturnType<typeof findDisputeEmbedded>>>;

/** One dispute the scope may see, with its customer. */
export const findDisputeEmbedded = (db: Executor, id: string, allowed: OrganizationScope) =>
  selectEmbedded(db, { allowed, ids: [id] }).executeTakeFirst();

export const countDisputes = async (db: Executor, filter: DisputeFilter): Promise<number> =>
  Number(
    (
      await db
        .selectFrom("disputes as d")
        .where((eb) => matches(eb, filter))
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .executeTakeFirstOrThrow()
    ).count,
  );

/** A page of disputes in the criteria's order, then the id in the first criterion's direction (pages neither repeat nor skip). */
export function listDisputesEmbedded(
  db: Executor,
  filter: DisputeFilter,
  sorting: readonly SortCriterion<DisputeSortKey>[],
  window: { offset: number; limit: number },
) {
  let query = selectEmbedded(db, filter);
  for (const { key, direction } of sorting) query = query.orderBy(`d.${key}`, direction);
  return query
    .orderBy("d.id", sorting[0]?.direction ?? "desc")
    .offset(window.offset)
    .limit(window.limit)
    .execute();
}

/** One dispute the scope may see, locked: accepts of one dispute run one at a time. */
export const findDisputeForUpdate = (db: Executor, id: string, allowed: OrganizationScope): Promise<DisputeRow | undefined> =>
  db
    .selectFrom("disputes as d")
    .selectAll("d")
    .where((eb) => matches(eb, { allowed, ids: [id] }))
    .forUpdate()
    .executeTakeFirst();

/** The dispute under the processor's id, locked: its events apply one at a time. */
export const findDisputeByProcessorIdForUpdate = (db: Executor, processorDisputeId: string): Promise<DisputeRow | undefined> =>
  db.selectFrom("disputes").selectAll().where("processor_dispute_id", "=", processorDisputeId).forUpdate().executeTakeFirst();

/** Inserts the dispute unless its processor id is known already (a racing first event): undefined then. */
export const insertDisputeIfNew = (db: Executor, values: Insertable<DisputesTable>): Promise<DisputeRow | undefined> =>
  db
    .insertInto("disputes")
    .values(values)
    .onConflict((oc) => oc.column("processor_dispute_id").doNothing())
    .returningAll()
    .executeTakeFirst();

export const updateDispute = (db: Executor, id: string, values: Updateable<DisputesTable>): Promise<DisputeRow> =>
  db.updateTable("disputes").set(values).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
