import type { ColumnType } from "kysely";

/** One Idempotency-Key of one principal scope (src/http/idempotency.ts). */
export interface IdempotencyKeysTable {
  id: string;
  /** Who used the key: `organization:<id>`, `user:<token id>`, `customer:<id>`, `member:<id>`, `client-secret:<sha256>` or `anonymous:<request fingerprint>`. */
  scope: string;
  key: string;
  /** sha256 of method, URL and body: a reuse of the key for another request is refused. */
  fingerprint: string;
  state: "running" | "completed";
  /** A running request holds the key until then; past it, the request is presumed dead. */
  locked_until: Date;
  /** Set by the request's own transactions at their commit (src/db/commit-marks.ts). */
  committed_at: Date | null;
  status_code: number | null;
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  response_body: string | null;
  created_at: Date;
  expires_at: Date;
}
