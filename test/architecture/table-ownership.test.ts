import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../helpers/process.ts";

/**
 * docs/architecture.md: a module reads another module's table only through that module's steps.
 * The tables of `src/db/database.ts` belong to the module whose `*.table.ts` declares them; this
 * test finds every table a module's files name in a query (Kysely's builders and raw SQL) and
 * expects none of another module's. A module built below the table's owner reads it through the
 * owner's steps all the same, bound by services.ts (its `*-dependent-reads.ts`).
 */

const SRC = path.join(projectRoot, "src");

/**
 * Read models (docs/architecture.md, "metrics"): the files that answer a query over many modules'
 * rows in a single statement (the statement and its families, one file each), and write none of
 * them. The allowance is the file, not the module.
 */
const READ_MODELS: ReadonlySet<string> = new Set(
  [
    "metrics.repository.ts",
    "metric-orders.repository.ts",
    "metric-subscriptions.repository.ts",
    "metric-new-subscriptions.repository.ts",
    "metric-checkouts.repository.ts",
    "metric-costs.repository.ts",
  ].map((file) => `metrics/${file}`),
);
const WRITES = /\.(?:insertInto|updateTable|deleteFrom|mergeInto)\(|\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s/;

/** Table name → owning module, from the imports and the interface of src/db/database.ts. */
async function tableOwners(): Promise<Map<string, string>> {
  const text = await readFile(path.join(SRC, "db", "database.ts"), "utf8");
  const typeOwner = new Map<string, string>();
  for (const match of text.matchAll(/import type \{([^}]*)\} from "\.\.\/(?:modules\/)?([\w-]+)\//g)) {
    for (const name of match[1]!.split(",")) typeOwner.set(name.trim(), match[2]!);
  }
  const owners = new Map<string, string>();
  const body = text.slice(text.indexOf("export interface Database"));
  for (const match of body.matchAll(/^\s+(\w+): (\w+);$/gm)) owners.set(match[1]!, typeOwner.get(match[2]!) ?? "?");
  return owners;
}

/** The tables a source text names in queries: builder calls and the FROM/JOIN/UPDATE/INTO of raw SQL. */
function tablesNamed(source: string, tables: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  const builder = /\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto|using)\(\s*"(\w+)/g;
  for (const match of source.matchAll(builder)) found.add(match[1]!);
  const raw = /\b(?:FROM|JOIN|UPDATE|INTO)\s+"?(\w+)"?/g;
  for (const match of source.matchAll(raw)) if (tables.has(match[1]!)) found.add(match[1]!);
  return found;
}

/** Module → the other modules' tables its files name, as "table" entries, sorted. */
async function foreignReads(): Promise<Record<string, string[]>> {
  const owners = await tableOwners();
  const tables = new Set(owners.keys());
  const reads: Record<string, string[]> = {};
  const modulesDir = path.join(SRC, "modules");
  for (const module of (await readdir(modulesDir)).sort()) {
    const foreign = new Set<string>();
    for (const entry of await readdir(path.join(modulesDir, module), { recursive: true })) {
      if (!entry.endsWith(".ts")) continue;
      const source = await readFile(path.join(modulesDir, module, entry), "utf8");
      if (READ_MODELS.has(`${module}/${entry}`)) {
        if (WRITES.test(source)) foreign.add(`(writes in the read model ${entry})`);
        continue;
      }
      for (const table of tablesNamed(source, tables)) if (owners.get(table) !== module) foreign.add(table);
    }
    if (foreign.size) reads[module] = [...foreign].sort();
  }
  return reads;
}

describe("table ownership", () => {
  it("knows the owner of every table of the database schema", async () => {
    const owners = await tableOwners();
    expect(owners.size).toBeGreaterThan(40);
    expect([...owners].filter(([, owner]) => owner === "?")).toEqual([]);
  });

  it("finds a foreign table in a builder call and in raw SQL, and not a module's own", () => {
    const tables = new Set(["orders", "refunds", "customers"]);
    const source = 'db.selectFrom("orders as o").innerJoin("customers as c", "c.id", "o.customer_id"); sql`SELECT 1 FROM refunds r`';
    expect([...tablesNamed(source, tables)].sort()).toEqual(["customers", "orders", "refunds"]);
    expect([...tablesNamed("sql`SELECT now() FROM generate_series(1, 2)`", tables)]).toEqual([]);
  });

  it("lets no module read another module's table", async () => {
    expect(await foreignReads()).toEqual({});
  });
});
