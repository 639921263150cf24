import { sql, type Kysely } from "kysely";

/**
 * Seats of a seat-based subscription or one-time order, each held by one member of the billing
 * customer. A pending seat carries the keyed hash of its invitation token (never the token); a
 * revoked row is reused by the next assignment of its container. A member holds at most one live
 * seat of a container (the partial unique indexes), so two parallel assignments of one holder
 * cannot both win. Benefit grants gain the member they are for and the seat they come from: a
 * holder's grants follow the seat, not the purchase.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE customer_seats (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created_at timestamptz NOT NULL DEFAULT now(),
    modified_at timestamptz,
    organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    subscription_id uuid REFERENCES subscriptions(id) ON DELETE CASCADE,
    order_id uuid REFERENCES orders(id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('pending', 'claimed', 'revoked')),
    customer_id uuid REFERENCES customers(id) ON DELETE SET NULL,
    member_id uuid REFERENCES members(id) ON DELETE SET NULL,
    email text,
    invitation_token_hash text UNIQUE,
    invitation_token_expires_at timestamptz,
    claimed_at timestamptz,
    revoked_at timestamptz,
    seat_metadata jsonb,
    CHECK ((subscription_id IS NULL) <> (order_id IS NULL))
  )`.execute(db);
  await sql`CREATE INDEX customer_seats_subscription ON customer_seats (subscription_id, created_at) WHERE subscription_id IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX customer_seats_order ON customer_seats (order_id, created_at) WHERE order_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX customer_seats_member ON customer_seats (member_id) WHERE member_id IS NOT NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX customer_seats_subscription_member_uq ON customer_seats (subscription_id, member_id)
    WHERE status <> 'revoked' AND subscription_id IS NOT NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX customer_seats_order_member_uq ON customer_seats (order_id, member_id)
    WHERE status <> 'revoked' AND order_id IS NOT NULL`.execute(db);

  await sql`ALTER TABLE benefit_grants
    ADD COLUMN member_id uuid REFERENCES members(id) ON DELETE SET NULL,
    ADD COLUMN seat_id uuid REFERENCES customer_seats(id) ON DELETE CASCADE`.execute(db);
  await sql`CREATE UNIQUE INDEX benefit_grants_seat_benefit_uq ON benefit_grants (seat_id, benefit_id) WHERE seat_id IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE benefit_grants DROP COLUMN seat_id, DROP COLUMN member_id`.execute(db);
  await sql`DROP TABLE customer_seats`.execute(db);
}
