import { DEFAULT_MIGRATION_TABLE, Migrator, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations, renamedMigrations } from "../../migrations/index.ts";
import type { Database } from "../../src/db/database.ts";
import { isMigrated, migrateToLatest } from "../../src/db/migrate.ts";
import { createTestContext } from "../helpers/context.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { createCustomer, createOrder, createOrganization } from "../helpers/factories.ts";

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

/** Going down to an early migration and back runs every later one twice: minutes on a loaded machine. */
const DOWN_AND_UP_MS = 180_000;

describe("migration 2026-11-24T0070: tax IDs under the reference's formats", () => {
  const MIGRATION = "2026-11-24T0070_tax_id_formats_of_the_reference";

  it(
    "rewrites the non-enum formats kept before it on customers and orders, and back on the way down",
    async () => {
      const context = await createTestContext();
      try {
        const { db } = context.deps;
        const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
        // The order is written by today's code, so before going down; its tax ID is set below.
        const organization = await createOrganization(context.deps);
        const serbian = await createCustomer(context.deps, organization.id);
        const order = await createOrder(context.deps, organization.id, { customer: serbian });
        const down = await migrator.migrateTo(names[names.indexOf(MIGRATION) - 1]!);
        expect(down.error).toBeUndefined();

        const stored = { rs: ["RS101134702", "rs_vat"], fr: ["FR61954506077", "eu_vat"] };
        await db
          .updateTable("customers")
          .set({ tax_id: JSON.stringify(stored.rs) })
          .where("id", "=", serbian.id)
          .execute();
        const french = await createCustomer(context.deps, organization.id, { tax_id: JSON.stringify(stored.fr) });
        await db
          .updateTable("orders")
          .set({ tax_id: JSON.stringify(stored.rs) })
          .where("id", "=", order.id)
          .execute();
        const taxIds = async () => ({
          serbian: (await db.selectFrom("customers").select("tax_id").where("id", "=", serbian.id).executeTakeFirstOrThrow()).tax_id,
          french: (await db.selectFrom("customers").select("tax_id").where("id", "=", french.id).executeTakeFirstOrThrow()).tax_id,
          order: (await db.selectFrom("orders").select("tax_id").where("id", "=", order.id).executeTakeFirstOrThrow()).tax_id,
        });

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await taxIds()).toEqual({ serbian: ["101134702", "rs_pib"], french: stored.fr, order: ["101134702", "rs_pib"] });

        expect((await migrator.migrateTo(names[names.indexOf(MIGRATION) - 1]!)).error).toBeUndefined();
        expect(await taxIds()).toEqual({ serbian: stored.rs, french: stored.fr, order: stored.rs });
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
      } finally {
        await context.close();
      }
    },
    DOWN_AND_UP_MS,
  );
});

describe("migration 2026-11-24T0220: tax collected only where registered", () => {
  const MIGRATION = "2026-11-24T0220_tax_collected_where_registered";
  const france = { line1: "1 rue de la Paix", line2: null, postal_code: "75002", city: "Paris", state: null, country: "FR" as const };

  it(
    "keeps existing organizations collecting where they did, and records on existing orders the rate their documents printed",
    async () => {
      const context = await createTestContext();
      try {
        const { db } = context.deps;
        const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
        const unregistered = await createOrganization(context.deps);
        const registeredInFrance = await createOrganization(context.deps);
        // Orders as today's code writes them; going down forgets what they recorded.
        const taxed = await createOrder(context.deps, unregistered.id, {
          amounts: { subtotal: 1999, tax: 400 },
          billing: { name: "A", address: france },
        });
        const reversed = await createOrder(context.deps, unregistered.id, {
          amounts: { subtotal: 1000, tax: 0 },
          billing: { name: "B SAS", address: france },
          values: { tax_id: JSON.stringify(["FR61954506077", "eu_vat"]) },
        });
        const american = { ...france, country: "US" as const, state: "US-NY" };
        const untaxed = await createOrder(context.deps, unregistered.id, {
          amounts: { subtotal: 1000 },
          billing: { name: "C", address: american },
        });
        expect((await migrator.migrateTo(names[names.indexOf(MIGRATION) - 1]!)).error).toBeUndefined();
        // Before: registrations without a scheme, only for what documents print.
        await db
          .updateTable("organizations")
          .set({ tax_registrations: JSON.stringify([{ country: "FR", state: null, number: "FR40303265045" }]) })
          .where("id", "=", registeredInFrance.id)
          .execute();

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const registrations = async (id: string) =>
          (await db.selectFrom("organizations").select("tax_registrations").where("id", "=", id).executeTakeFirstOrThrow())
            .tax_registrations;
        const legacy = [
          "AT",
          "BE",
          "BG",
          "CY",
          "CZ",
          "DE",
          "DK",
          "EE",
          "ES",
          "FI",
          "FR",
          "GR",
          "HR",
          "HU",
          "IE",
          "IT",
          "LT",
          "LU",
          "LV",
          "MT",
        ]
          .concat(["NL", "PL", "PT", "RO", "SE", "SI", "SK", "GB", "NO", "CH", "AU", "CA"])
          .sort();
        const unnumbered = (country: string) => ({ country, state: null, scheme: "standard", number: null });
        expect(await registrations(unregistered.id)).toEqual(legacy.map(unnumbered));
        expect(await registrations(registeredInFrance.id)).toEqual([
          { country: "FR", state: null, scheme: "standard", number: "FR40303265045" },
          ...legacy.filter((country) => country !== "FR").map(unnumbered),
        ]);
        const recorded = async (id: string) =>
          db.selectFrom("orders").select(["tax_rate_basis_points", "tax_reverse_charge"]).where("id", "=", id).executeTakeFirstOrThrow();
        // 19.99 at 20 % is 4.00: the standard rate that gives the tax, not the effective 20.01 %.
        expect(await recorded(taxed.id)).toEqual({ tax_rate_basis_points: 2000, tax_reverse_charge: false });
        expect(await recorded(reversed.id)).toEqual({ tax_rate_basis_points: 0, tax_reverse_charge: true });
        expect(await recorded(untaxed.id)).toEqual({ tax_rate_basis_points: null, tax_reverse_charge: false });
      } finally {
        await context.close();
      }
    },
    DOWN_AND_UP_MS,
  );
});
