import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Kysely, type MigrationResultSet } from "kysely";
import { runMigrations as runWorkerMigrations } from "graphile-worker";
import type pg from "pg";
import { migrations, renamedMigrations } from "../../migrations/index.ts";
import type { Database } from "./database.ts";

function migrator(db: Kysely<Database>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/**
 * Renames the history rows of migrations that were renamed since they ran, so that Kysely finds
 * each executed migration under its current name. Idempotent, so concurrent starts may both run it.
 */
async function renameExecutedMigrations(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ present: boolean }>`SELECT to_regclass(${DEFAULT_MIGRATION_TABLE}) IS NOT NULL AS present`.execute(db);
  if (!rows[0]?.present) return;
  const history = db.withTables<{ [DEFAULT_MIGRATION_TABLE]: { name: string } }>();
  for (const [previous, current] of Object.entries(renamedMigrations)) {
    await history.updateTable(DEFAULT_MIGRATION_TABLE).set({ name: current }).where("name", "=", previous).execute();
  }
}

/** Applies the app's migrations (Kysely's Migrator) and the job queue's own schema. */
export async function migrateToLatest(db: Kysely<Database>, pool: pg.Pool): Promise<MigrationResultSet> {
  await renameExecutedMigrations(db);
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
