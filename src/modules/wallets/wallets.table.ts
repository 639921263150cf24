import type { Generated, Selectable } from "kysely";

/** The hosted service's two internal kinds: prepaid usage credits, and a balance for billing. */
export type WalletType = "usage" | "billing";

/** A customer's wallet in one currency: see migrations/2026-11-30T0141_wallets.ts. */
export interface WalletsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  modified_at: Date | null;
  deleted_at: Date | null;
  organization_id: string;
  customer_id: string;
  type: WalletType;
  /** ISO 4217, lowercase. */
  currency: string;
}
export type WalletRow = Selectable<WalletsTable>;

/** One movement of a wallet, in its currency's minor units: credits positive, spending negative. */
export interface WalletTransactionsTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  wallet_id: string;
  amount: number;
}
