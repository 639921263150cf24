import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { BillingCountersTable } from "./orders.table.ts";

/**
 * The next value of a counter. The upsert takes the counter's row lock until the transaction ends,
 * so concurrent orders of one subject are serialized and a rollback frees the number: gap-free.
 */
export async function nextBillingCounterValue(
  db: Executor,
  organizationId: string,
  subjectId: string,
  kind: BillingCountersTable["kind"],
): Promise<number> {
  const row = await db
    .insertInto("billing_counters")
    .values({ organization_id: organizationId, subject_id: subjectId, kind, value: 1 })
    .onConflict((oc) => oc.columns(["subject_id", "kind"]).doUpdateSet({ value: sql`billing_counters.value + 1` }))
    .returning("value")
    .executeTakeFirstOrThrow();
  return row.value;
}
