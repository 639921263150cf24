import type { Deps } from "../../context.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import type { CustomerWallet, CustomerWalletListQuery } from "../wallets/wallets.schemas.ts";
import { countCustomerWallets, findCustomerWallet, listCustomerWallets, toCustomerWallet } from "../wallets/wallets.steps.ts";
import type { portalCustomerOf } from "./portal-session.ts";

type PortalCustomer = ReturnType<typeof portalCustomerOf>;

/** The session's customer's wallets (none until a credit feature creates them; docs/decisions.md). */
export function createPortalWalletService(deps: Deps) {
  return {
    list: (query: CustomerWalletListQuery, session: PortalCustomer): Promise<Page<CustomerWallet>> =>
      paginate(
        query,
        () => countCustomerWallets(deps.readDb, session),
        async (offset, limit) =>
          (await listCustomerWallets(deps.readDb, session, parseSorting(query.sorting), offset, limit)).map(toCustomerWallet),
      ),

    async get(id: string, session: PortalCustomer): Promise<CustomerWallet> {
      const row = await findCustomerWallet(deps.readDb, session, id);
      if (!row) throw new ResourceNotFound();
      return toCustomerWallet(row);
    },
  };
}
export type PortalWalletService = ReturnType<typeof createPortalWalletService>;
