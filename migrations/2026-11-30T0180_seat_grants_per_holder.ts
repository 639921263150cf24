import { sql, type Kysely } from "kysely";

/**
 * A revoked seat is reused by its container's next assignment (the same seat id), so a seat's grants
 * are unique per holder, not per seat: its new holder gets grants of their own, and a holder given
 * the seat back has their earlier grants restored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX benefit_grants_seat_benefit_uq`.execute(db);
  await sql`CREATE UNIQUE INDEX benefit_grants_seat_member_benefit_uq ON benefit_grants (seat_id, member_id, benefit_id)
    WHERE seat_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX benefit_grants_seat_member_benefit_uq`.execute(db);
  await sql`CREATE UNIQUE INDEX benefit_grants_seat_benefit_uq ON benefit_grants (seat_id, benefit_id) WHERE seat_id IS NOT NULL`.execute(
    db,
  );
}
