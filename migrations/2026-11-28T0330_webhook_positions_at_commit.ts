import { sql, type Kysely } from "kysely";

/**
 * A webhook event takes its position when its transaction commits, one transaction of the
 * organization at a time (docs/decisions.md, "Ordering per endpoint"). Taken at insert, a position
 * could belong to a transaction that commits after one holding a later position, whose event may
 * already have gone out: the endpoint would get the two out of their order. The deferred trigger
 * runs as the transaction commits, takes a transaction-scoped lock on the organization's positions
 * and numbers the row; the lock is released only once the commit is visible, so the next
 * transaction's positions come after every position a reader can already see. It holds no lock
 * but that one, and only while committing; a transaction's events keep their recording order
 * (deferred triggers fire in the order of the inserts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE FUNCTION webhook_event_position_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('webhook-positions:' || NEW.organization_id, 0));
      UPDATE webhook_events SET position = nextval(pg_get_serial_sequence('webhook_events', 'position')) WHERE id = NEW.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER webhook_events_position_at_commit AFTER INSERT ON webhook_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION webhook_event_position_at_commit()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER webhook_events_position_at_commit ON webhook_events`.execute(db);
  await sql`DROP FUNCTION webhook_event_position_at_commit()`.execute(db);
}
