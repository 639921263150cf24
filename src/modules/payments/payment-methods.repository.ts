import type { Executor } from "../../db/database.ts";
import type { SavedPaymentMethod } from "../../adapters/payment-processors/payment-processor.ts";
import type { PaymentMethodRow } from "./payments.table.ts";

// Saved payment methods: the processor's handles and their display facts.

/** Stores a method the processor saved for the customer: its handle and display facts only. */
export const savePaymentMethod = (
  db: Executor,
  input: { organizationId: string; customerId: string; method: SavedPaymentMethod; now: Date },
): Promise<PaymentMethodRow> =>
  db
    .insertInto("payment_methods")
    .values({
      created_at: input.now,
      modified_at: null,
      organization_id: input.organizationId,
      customer_id: input.customerId,
      processor_reference: input.method.reference,
      processor_customer_reference: input.method.customerReference,
      type: input.method.type,
      brand: input.method.brand,
      last4: input.method.last4,
      exp_month: input.method.expMonth,
      exp_year: input.method.expYear,
      deleted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

const liveMethods = (db: Executor, customerId: string) =>
  db.selectFrom("payment_methods").where("customer_id", "=", customerId).where("deleted_at", "is", null);

/** A live method of the customer (deleted methods are never charged). */
export const findPaymentMethod = (db: Executor, id: string, customerId: string): Promise<PaymentMethodRow | undefined> =>
  liveMethods(db, customerId).selectAll().where("id", "=", id).executeTakeFirst();

export const countPaymentMethods = async (db: Executor, customerId: string): Promise<number> =>
  Number(
    (
      await liveMethods(db, customerId)
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .executeTakeFirstOrThrow()
    ).count,
  );

/** The customer's live methods, newest first (the id breaks ties so pages neither repeat nor skip). */
export const listPaymentMethods = (
  db: Executor,
  customerId: string,
  window: { offset: number; limit: number; exceptId?: string },
): Promise<PaymentMethodRow[]> => {
  let query = liveMethods(db, customerId).selectAll();
  if (window.exceptId) query = query.where("id", "<>", window.exceptId);
  return query.orderBy("created_at", "desc").orderBy("id", "desc").offset(window.offset).limit(window.limit).execute();
};

export const deletePaymentMethod = (db: Executor, id: string, now: Date): Promise<PaymentMethodRow> =>
  db
    .updateTable("payment_methods")
    .set({ deleted_at: now, modified_at: now })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();

/** The customer's method saved under a processor's handle, deleted or not (a setup confirmed twice saves one). */
export const customerMethodByReference = (db: Executor, customerId: string, reference: string): Promise<PaymentMethodRow | undefined> =>
  db
    .selectFrom("payment_methods")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("processor_reference", "=", reference)
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();

/** The live methods saved under a processor's handle (one card saved by two customers is two rows). */
export const liveMethodsByReference = (db: Executor, reference: string): Promise<PaymentMethodRow[]> =>
  db.selectFrom("payment_methods").selectAll().where("processor_reference", "=", reference).where("deleted_at", "is", null).execute();

/** A card's display facts as the processor now reports them (its network sent a new expiry or number). */
export const refreshPaymentMethods = async (db: Executor, method: SavedPaymentMethod, now: Date): Promise<void> => {
  await db
    .updateTable("payment_methods")
    .set({ brand: method.brand, last4: method.last4, exp_month: method.expMonth, exp_year: method.expYear, modified_at: now })
    .where("processor_reference", "=", method.reference)
    .where("deleted_at", "is", null)
    .execute();
};
