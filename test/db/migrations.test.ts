import { DEFAULT_MIGRATION_TABLE, Migrator, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations, renamedMigrations } from "../../migrations/index.ts";
import type { Database } from "../../src/db/database.ts";
import { isMigrated, migrateToLatest } from "../../src/db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const names = Object.keys(migrations);
const timestampOf = (name: string) => name.slice(0, name.indexOf("_"));
const historyOf = (db: Kysely<Database>) => db.withTables<{ [DEFAULT_MIGRATION_TABLE]: { name: string; timestamp: string } }>();

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe("migrations", () => {
  it("are listed in the order Kysely runs them: sorted by name", () => {
    expect(names).toEqual([...names].sort());
  });

  it("renames keep their timestamp and lead to a listed migration", () => {
    for (const [previous, current] of Object.entries(renamedMigrations)) {
      expect(names).toContain(current);
      expect(names).not.toContain(previous);
      expect(timestampOf(previous)).toBe(timestampOf(current));
    }
  });

  it("start on a database migrated before the renames, running nothing again", async () => {
    const history = historyOf(database.db);
    for (const [previous, current] of Object.entries(renamedMigrations)) {
      await history.updateTable(DEFAULT_MIGRATION_TABLE).set({ name: previous }).where("name", "=", current).execute();
    }
    // Kysely alone refuses that history.
    const kyselyAlone = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
    const refused = await kyselyAlone.migrateToLatest();
    expect(String(refused.error)).toMatch(/previously executed migration .* is missing/);

    const result = await migrateToLatest(database.db, database.pool);
    expect(result.results).toEqual([]);
    expect(await isMigrated(database.db)).toBe(true);
    const executed = await history.selectFrom(DEFAULT_MIGRATION_TABLE).select("name").orderBy("timestamp").orderBy("name").execute();
    expect(executed.map((row) => row.name)).toEqual(names);
  });
});
