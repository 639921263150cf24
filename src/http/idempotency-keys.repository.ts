import { randomUUID } from "node:crypto";
import { sql, type CompiledQuery, type Selectable } from "kysely";
import type { Db } from "../db/database.ts";
import type { IdempotencyKeysTable } from "./idempotency.table.ts";

/** What a stored response keeps: status, the headers that describe the body, and the body as sent. */
export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string | null;
}

/** The outcome of trying to take a key for a request. */
export type Reservation =
  | { kind: "run"; id: string }
  | { kind: "replay"; response: StoredResponse }
  | { kind: "mismatch" }
  /** Another request with the key is running (its lease is live). */
  | { kind: "busy" }
  /** An earlier attempt committed changes and died before its response was stored. */
  | { kind: "lost" };

export interface KeyClaim {
  scope: string;
  key: string;
  fingerprint: string;
  now: Date;
  ttlMs: number;
  leaseMs: number;
}

const later = (date: Date, ms: number) => new Date(date.getTime() + ms);

/** Inserts a running record for the key unless one exists; its id when inserted. */
async function insertRunning(db: Db, claim: KeyClaim): Promise<string | null> {
  const row = await db
    .insertInto("idempotency_keys")
    .values({
      id: randomUUID(),
      scope: claim.scope,
      key: claim.key,
      fingerprint: claim.fingerprint,
      state: "running",
      locked_until: later(claim.now, claim.leaseMs),
      created_at: claim.now,
      expires_at: later(claim.now, claim.ttlMs),
    })
    .onConflict((oc) => oc.columns(["scope", "key"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Takes over the record of a dead attempt that committed nothing (compare-and-set on its lease). */
async function takeOverAbandoned(db: Db, id: string, claim: KeyClaim): Promise<boolean> {
  const row = await db
    .updateTable("idempotency_keys")
    .set({ locked_until: later(claim.now, claim.leaseMs) })
    .where("id", "=", id)
    .where("state", "=", "running")
    .where("committed_at", "is", null)
    .where("locked_until", "<=", claim.now)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

function judge(row: Selectable<IdempotencyKeysTable>, claim: KeyClaim): Reservation | "take-over" {
  if (row.fingerprint !== claim.fingerprint) return { kind: "mismatch" };
  if (row.state === "completed") {
    return {
      kind: "replay",
      response: { statusCode: row.status_code ?? 200, headers: row.response_headers ?? {}, body: row.response_body },
    };
  }
  if (row.locked_until > claim.now) return { kind: "busy" };
  return row.committed_at === null ? "take-over" : { kind: "lost" };
}

/**
 * Reserves the key for this request, or says why not. Each step is one autocommitted statement,
 * so a reservation is visible to other requests (and processes) at once; an expired record is
 * deleted on the way (the scheduled purge removes the rest).
 */
export async function reserveKey(db: Db, claim: KeyClaim): Promise<Reservation> {
  // Each pass sees another request's step (an insert, a deletion, a take-over); a few settle it.
  for (let pass = 0; pass < 5; pass++) {
    const inserted = await insertRunning(db, claim);
    if (inserted !== null) return { kind: "run", id: inserted };
    const row = await db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("scope", "=", claim.scope)
      .where("key", "=", claim.key)
      .executeTakeFirst();
    if (row === undefined) continue;
    if (row.expires_at <= claim.now) {
      await db.deleteFrom("idempotency_keys").where("id", "=", row.id).where("expires_at", "<=", claim.now).execute();
      continue;
    }
    const verdict = judge(row, claim);
    if (verdict !== "take-over") return verdict;
    if (await takeOverAbandoned(db, row.id, claim)) return { kind: "run", id: row.id };
  }
  return { kind: "busy" };
}

/** The statement a request's transactions run before COMMIT: its changes and this stamp are durable together. */
export function committedMark(db: Db, id: string): CompiledQuery {
  return sql`UPDATE idempotency_keys SET committed_at = coalesce(committed_at, now()) WHERE id = ${id}`.compile(db);
}

export async function storeResponse(db: Db, id: string, response: StoredResponse): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set({
      state: "completed",
      status_code: response.statusCode,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
    })
    .where("id", "=", id)
    .execute();
}

/**
 * A response that is not kept (a 5xx): the key is freed so a retry runs again, unless the request
 * committed changes; then its lease ends now and retries answer "lost" rather than run twice.
 */
export async function releaseKey(db: Db, id: string, now: Date): Promise<void> {
  const deleted = await db.deleteFrom("idempotency_keys").where("id", "=", id).where("committed_at", "is", null).executeTakeFirst();
  if (deleted.numDeletedRows > 0n) return;
  await db.updateTable("idempotency_keys").set({ locked_until: now }).where("id", "=", id).where("state", "=", "running").execute();
}

/** Deletes the records past their expiry (the scheduled purge); how many. */
export async function purgeExpiredKeys(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom("idempotency_keys").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
