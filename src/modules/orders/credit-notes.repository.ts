import type { Insertable, Updateable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { orderDependentReads } from "./order-dependent-reads.ts";
import type { CreditNoteRow, CreditNotesTable } from "./orders.table.ts";

export const insertCreditNote = (db: Executor, values: Insertable<CreditNotesTable>): Promise<CreditNoteRow> =>
  db.insertInto("credit_notes").values(values).returningAll().executeTakeFirstOrThrow();

export const updateCreditNote = (db: Executor, id: string, values: Updateable<CreditNotesTable>): Promise<void> =>
  db
    .updateTable("credit_notes")
    .set(values)
    .where("id", "=", id)
    .execute()
    .then(() => undefined);

export const findCreditNote = (db: Executor, id: string): Promise<CreditNoteRow | undefined> =>
  db.selectFrom("credit_notes").selectAll().where("id", "=", id).executeTakeFirst();

export const findCreditNoteForUpdate = (db: Executor, id: string): Promise<CreditNoteRow | undefined> =>
  db.selectFrom("credit_notes").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();

export const findCreditNoteOfRefund = (db: Executor, refundId: string): Promise<CreditNoteRow | undefined> =>
  db.selectFrom("credit_notes").selectAll().where("refund_id", "=", refundId).executeTakeFirst();

/** An order's credit notes, oldest number first. */
export const creditNotesOfOrder = (db: Executor, orderId: string): Promise<CreditNoteRow[]> =>
  db.selectFrom("credit_notes").selectAll().where("order_id", "=", orderId).orderBy("created_at").orderBy("number").execute();

/**
 * An order's succeeded refunds, oldest first, read from the refunds' own table expression (the
 * refunds feature builds on orders, not the other way round): the receipt lists them, and an
 * invoice requested after them issues their credit notes.
 */
export const succeededRefundsOfOrder = (db: Executor, orderId: string) =>
  db
    .selectFrom(orderDependentReads().succeededRefunds("r"))
    .leftJoin("credit_notes as cn", "cn.refund_id", "r.id")
    .select(["r.id", "r.created_at", "r.amount", "r.tax_amount", "r.currency", "cn.id as credit_note_id"])
    .where("r.order_id", "=", orderId)
    .orderBy("r.created_at")
    .orderBy("r.id")
    .execute();
