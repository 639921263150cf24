import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import type { CustomerWallet } from "./wallets.schemas.ts";
import type { WalletRow } from "./wallets.table.ts";

export const toCustomerWallet = (row: WalletRow & { balance: number }): CustomerWallet => ({
  id: row.id,
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  customer_id: row.customer_id,
  balance: Number(row.balance),
  currency: row.currency,
});
