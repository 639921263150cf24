import { sql } from "kysely";
import type { Executor } from "../../db/database.ts";
import type { BillingCountersTable } from "./orders.table.ts";

/**
 * The next values of several counters of one organization, in one statement, in the order given.
 * The upsert takes each counter's row lock (in that order) until the transaction ends, so
 * concurrent orders of one subject are serialized and a rollback frees the numbers: gap-free.
 */
export async function nextBillingCounterValues(
  db: Executor,
  organizationId: string,
  counters: readonly { subjectId: string; kind: BillingCountersTable["kind"] }[],
): Promise<number[]> {
  if (!counters.length) return [];
  const rows = await db
    .insertInto("billing_counters")
    .values(counters.map(({ subjectId, kind }) => ({ organization_id: organizationId, subject_id: subjectId, kind, value: 1 })))
    .onConflict((oc) => oc.columns(["subject_id", "kind"]).doUpdateSet({ value: sql`billing_counters.value + 1` }))
    .returning(["subject_id", "kind", "value"])
    .execute();
  return counters.map(({ subjectId, kind }) => {
    const row = rows.find((r) => r.subject_id === subjectId && r.kind === kind);
    if (!row) throw new Error(`billing counter ${kind} of ${subjectId} not returned`);
    return row.value;
  });
}

/** The next value of one counter (see nextBillingCounterValues). */
export async function nextBillingCounterValue(
  db: Executor,
  organizationId: string,
  subjectId: string,
  kind: BillingCountersTable["kind"],
): Promise<number> {
  const [value] = await nextBillingCounterValues(db, organizationId, [{ subjectId, kind }]);
  return value!;
}
