import { sql, type Kysely } from "kysely";

/**
 * Tax is collected only where the organization is registered (docs/decisions.md, "Tax collected
 * only where the seller is registered"). Until now every organization charged the standard rate of
 * these 32 countries, whatever its registrations; a copy of that table, frozen here as it was.
 */
// A code list, kept dense so that it reads as a table.
// prettier-ignore
const LEGACY_RATES: readonly (readonly [string, number])[] = [
  ["AT", 2000], ["BE", 2100], ["BG", 2000], ["CY", 1900], ["CZ", 2100], ["DE", 1900], ["DK", 2500], ["EE", 2200],
  ["ES", 2100], ["FI", 2550], ["FR", 2000], ["GR", 2400], ["HR", 2500], ["HU", 2700], ["IE", 2300], ["IT", 2200],
  ["LT", 2100], ["LU", 1700], ["LV", 2100], ["MT", 1800], ["NL", 2100], ["PL", 2300], ["PT", 2300], ["RO", 1900],
  ["SE", 2500], ["SI", 2200], ["SK", 2300], ["GB", 2000], ["NO", 2500], ["CH", 810], ["AU", 1000], ["CA", 500],
];
const EU = LEGACY_RATES.slice(0, 27).map(([country]) => country);

const legacyTable = sql.join(LEGACY_RATES.map(([country, rate]) => sql`(${country}::text, ${rate}::numeric)`));

/**
 * 1. Every existing organization keeps collecting where it did: a registration (without number) for
 *    each of the 32 countries it does not list yet; registrations recorded so far get `scheme`.
 * 2. Checkouts and orders record the rate applied and whether reverse charge applied. Existing
 *    orders get what their documents printed until now: the legacy standard rate that gives their
 *    tax (else the effective rate), reverse charge for an untaxed EU business with a verified VAT number.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE organizations o SET tax_registrations = (
      SELECT coalesce(jsonb_agg(entry || jsonb_build_object('scheme', coalesce(entry->>'scheme', 'standard'))), '[]'::jsonb)
      FROM jsonb_array_elements(o.tax_registrations) entry
    ) || (
      SELECT coalesce(jsonb_agg(jsonb_build_object('country', l.country, 'state', null, 'scheme', 'standard', 'number', null) ORDER BY l.country), '[]'::jsonb)
      FROM (VALUES ${legacyTable}) AS l(country, rate)
      WHERE NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements(o.tax_registrations) entry
        WHERE entry->>'country' = l.country AND coalesce(entry->>'state', '') = ''
      )
    )`.execute(db);

  for (const table of ["checkouts", "orders"]) {
    await db.schema
      .alterTable(table)
      .addColumn("tax_rate_basis_points", "double precision")
      .addColumn("tax_reverse_charge", "boolean", (c) => c.notNull().defaultTo(false))
      .execute();
  }
  await sql`
    UPDATE orders o SET tax_reverse_charge = true, tax_rate_basis_points = 0
    WHERE o.tax_amount = 0 AND o.net_amount > 0 AND o.tax_id->>1 = 'eu_vat'
      AND o.billing_address->>'country' IN (${sql.join(EU)})`.execute(db);
  await sql`
    UPDATE orders o SET tax_rate_basis_points = coalesce(
      (SELECT l.rate FROM (VALUES ${legacyTable}) AS l(country, rate)
        WHERE l.country = o.billing_address->>'country'
          AND (round(o.net_amount * l.rate / 10000) = o.tax_amount
            OR round((o.net_amount + o.tax_amount) * l.rate / (10000 + l.rate)) = o.tax_amount)),
      round(o.tax_amount * 10000.0 / o.net_amount))
    WHERE o.tax_amount > 0 AND o.net_amount > 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["checkouts", "orders"]) {
    await db.schema.alterTable(table).dropColumn("tax_rate_basis_points").dropColumn("tax_reverse_charge").execute();
  }
  await sql`
    UPDATE organizations o SET tax_registrations = (
      SELECT coalesce(jsonb_agg(jsonb_build_object('country', entry->'country', 'state', entry->'state', 'number', entry->'number')), '[]'::jsonb)
      FROM jsonb_array_elements(o.tax_registrations) entry
      WHERE entry->'number' <> 'null'::jsonb
    )`.execute(db);
}
