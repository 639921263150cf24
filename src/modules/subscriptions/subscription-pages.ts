import type { Db, Executor } from "../../db/database.ts";
import { pageWindow, parseSorting, toPage, type Page, type PageRequest } from "../../schema/pagination.ts";
import * as repo from "./subscriptions.repository.ts";

/**
 * One page of subscriptions in a read schema of the caller's (`present`), with the count of every
 * match, both read in one snapshot so they agree. The merchant's list and the portal's share it.
 */
export async function pageSubscriptions<T>(
  db: Db,
  filter: repo.SubscriptionFilter,
  query: PageRequest & { sorting?: readonly (repo.SubscriptionOrdering | `-${repo.SubscriptionOrdering}`)[] },
  present: (db: Executor, rows: repo.SubscriptionEmbeddedRow[]) => Promise<T[]>,
): Promise<Page<T>> {
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute(async (trx) => {
      const total = await repo.countSubscriptions(trx, filter);
      const rows = await repo.pageSubscriptionsEmbedded(trx, filter, parseSorting(query.sorting), pageWindow(query));
      return toPage(await present(trx, rows), total, query);
    });
}
