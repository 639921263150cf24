import { sql } from "kysely";
import type { Executor } from "./database.ts";

/** The time zone names PostgreSQL knows (read once per process: the view reads the zone files). */
let zoneNames: Promise<Set<string>> | null = null;
export function knownTimeZones(db: Executor): Promise<Set<string>> {
  zoneNames ??= sql<{ name: string }>`SELECT name FROM pg_timezone_names WHERE name NOT LIKE 'posix/%' AND name NOT LIKE 'right/%'`
    .execute(db)
    .then(({ rows }) => new Set(rows.map((row) => row.name)))
    .catch((error: unknown) => {
      // A failed read is not remembered: the next request reads again.
      zoneNames = null;
      throw error;
    });
  return zoneNames;
}
