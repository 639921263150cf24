import { sql, type Insertable } from "kysely";
import type { Executor } from "../../db/database.ts";
import { countRows } from "../../db/count-rows.ts";
import type { SortCriterion } from "../../schema/pagination.ts";
import type { WalletSortKey } from "./wallets.schemas.ts";
import type { WalletTransactionsTable, WalletsTable } from "./wallets.table.ts";

/** The balance is the sum of the wallet's transactions (bigint, as the pg driver reads it into a number). */
const balance = sql<number>`(SELECT coalesce(sum(t.amount), 0)::bigint FROM wallet_transactions t WHERE t.wallet_id = w.id)`;

const customerWallets = (db: Executor, owner: { organizationId: string; customerId: string }) =>
  db
    .selectFrom("wallets as w")
    .where("w.organization_id", "=", owner.organizationId)
    .where("w.customer_id", "=", owner.customerId)
    .where("w.deleted_at", "is", null);

const withBalance = (db: Executor, owner: { organizationId: string; customerId: string }) =>
  customerWallets(db, owner).selectAll("w").select(balance.as("balance"));

export const countCustomerWallets = (db: Executor, owner: { organizationId: string; customerId: string }) =>
  countRows(customerWallets(db, owner));

export async function listCustomerWallets(
  db: Executor,
  owner: { organizationId: string; customerId: string },
  sorting: SortCriterion<WalletSortKey>[],
  offset: number,
  limit: number,
) {
  let query = withBalance(db, owner);
  for (const { key, direction } of sorting) query = query.orderBy(key === "balance" ? balance : sql.ref("w.created_at"), direction);
  return query.orderBy("w.id").offset(offset).limit(limit).execute();
}

export const findCustomerWallet = (db: Executor, owner: { organizationId: string; customerId: string }, id: string) =>
  withBalance(db, owner).where("w.id", "=", id).executeTakeFirst();

export const insertWallet = (db: Executor, values: Insertable<WalletsTable>) =>
  db.insertInto("wallets").values(values).returningAll().executeTakeFirstOrThrow();

export const insertWalletTransaction = (db: Executor, values: Insertable<WalletTransactionsTable>) =>
  db.insertInto("wallet_transactions").values(values).returningAll().executeTakeFirstOrThrow();
