import { sql, type Kysely } from "kysely";

/**
 * Customer wallets, as the hosted service keeps them: one per customer, type (`usage`, `billing`)
 * and currency, with a balance that is the sum of its transactions (credits positive, minor units).
 * Nothing creates wallets yet (no top-up nor credit feature): the tables are what the portal's
 * wallet routes read, ready for the feature that writes them (docs/decisions.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE wallets (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    modified_at timestamptz,
    deleted_at timestamptz,
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    type text NOT NULL CHECK (type IN ('usage', 'billing')),
    currency text NOT NULL CHECK (currency ~ '^[a-z]{3}$')
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX wallets_customer_type_currency_uq ON wallets (customer_id, type, currency) WHERE deleted_at IS NULL`.execute(
    db,
  );
  await sql`CREATE TABLE wallet_transactions (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    wallet_id uuid NOT NULL REFERENCES wallets(id) ON DELETE CASCADE,
    amount bigint NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX wallet_transactions_wallet ON wallet_transactions (wallet_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE wallet_transactions`.execute(db);
  await sql`DROP TABLE wallets`.execute(db);
}
