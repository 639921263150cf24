import { Migrator, type Kysely, type MigrationResultSet } from "kysely";
import { runMigrations as runWorkerMigrations } from "graphile-worker";
import type pg from "pg";
import { migrations } from "../../migrations/index.ts";
import type { Database } from "./database.ts";

export const migrationNames = Object.keys(migrations);

function migrator(db: Kysely<Database>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/** Applies the app's migrations (Kysely's Migrator) and the job queue's own schema. */
export async function migrateToLatest(db: Kysely<Database>, pool: pg.Pool): Promise<MigrationResultSet> {
  const result = await migrator(db).migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error("a migration failed", { cause: result.error });
  await runWorkerMigrations({ pgPool: pool });
  return result;
}

/** True when every known migration has been applied. */
export async function isMigrated(db: Kysely<Database>): Promise<boolean> {
  const applied = await migrator(db).getMigrations();
  return applied.every((migration) => migration.executedAt !== undefined);
}
