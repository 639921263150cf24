import type { Config } from "./config.ts";
import type { Db } from "./db/database.ts";

/** What services need from the outside world; tests build it with their own database and clock. */
export interface Deps {
  /** The primary: every write, every transaction, and every read that must see its own writes. */
  readonly db: Db;
  /**
   * Reads that tolerate a replica's lag (organization-side lists and gets): `DATABASE_READ_URL`'s
   * streaming replica, or `db` itself when none is configured. Never used in a transaction.
   */
  readonly readDb: Db;
  readonly config: Config;
  /** Server secret keying the token hashes. */
  readonly secret: string;
  readonly now: () => Date;
}
