import { sql, type Kysely, type RawBuilder } from "kysely";

/**
 * Tax IDs stored before the one tax-id rule: Serbian, Russian, Brazilian and Andorran numbers were
 * kept as `[<prefix><number>, "<country>_vat"]`, formats the reference's enum lacks. They become the
 * identifiers the enum names (`rs_pib`, `ru_inn`, `br_cnpj`, `ad_nrt`), written without jsvat's
 * two-letter prefix, on customers and on orders alike.
 */
const RENAMED = [
  ["rs_vat", "rs_pib"],
  ["ru_vat", "ru_inn"],
  ["br_vat", "br_cnpj"],
  ["ad_vat", "ad_nrt"],
] as const;

async function rewrite(db: Kysely<unknown>, table: "customers" | "orders", from: string, to: string, number: RawBuilder<string>) {
  await sql`UPDATE ${sql.table(table)} SET tax_id = jsonb_build_array(${number}, ${to}::text) WHERE tax_id->>1 = ${from}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ["customers", "orders"] as const) {
    for (const [from, to] of RENAMED) await rewrite(db, table, from, to, sql<string>`substr(tax_id->>0, 3)`);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["customers", "orders"] as const) {
    for (const [from, to] of RENAMED) {
      const prefix = from.slice(0, 2).toUpperCase();
      await rewrite(db, table, to, from, sql<string>`${prefix} || (tax_id->>0)`);
    }
  }
}
