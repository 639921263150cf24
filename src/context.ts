import type { Config } from "./config.ts";
import type { Db } from "./db/database.ts";

/** What services need from the outside world; tests build it with their own database and clock. */
export interface Deps {
  readonly db: Db;
  readonly config: Config;
  /** Server secret keying the token hashes. */
  readonly secret: string;
  readonly now: () => Date;
}
