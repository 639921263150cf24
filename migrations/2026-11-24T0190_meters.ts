import { sql, type Kysely } from "kysely";

/**
 * Meters and their exact pre-aggregates (docs/decisions.md, "Meters: pre-aggregates").
 *
 * `meter_buckets` holds, per meter, customer and UTC hour, the matching events' count and the
 * count, sum, min and max of the aggregated property's numeric values; `meter_bucket_values` the
 * distinct values of the property per meter, customer and hour (what `unique` needs to stay
 * exact). A customer is keyed as the event names it: `c:<customer id>` or `e:<external id>`, and
 * resolved to a customer when read, so a later external id still groups correctly.
 *
 * Events ingested before `backfill_cut` are not in the buckets until `backfilled_at` is set (the
 * back-fill job); `generation` changes with the filter or aggregation, so a stale job does nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("meters")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("modified_at", "timestamptz")
    .addColumn("organization_id", "uuid", (c) => c.notNull().references("organizations.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("unit", "text", (c) => c.notNull().check(sql`unit IN ('scalar','token','custom')`))
    .addColumn("custom_label", "text")
    .addColumn("custom_multiplier", "integer")
    .addColumn("filter", "jsonb", (c) => c.notNull())
    .addColumn("aggregation", "jsonb", (c) => c.notNull())
    .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("archived_at", "timestamptz")
    .addColumn("generation", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("backfill_cut", "timestamptz", (c) => c.notNull())
    .addColumn("backfilled_at", "timestamptz")
    .execute();
  await sql`CREATE INDEX meters_org_name_idx ON meters (organization_id, name)`.execute(db);

  // Room on each page for the in-place (HOT) updates every ingest batch makes.
  await sql`CREATE TABLE meter_buckets (
    meter_id uuid NOT NULL REFERENCES meters (id) ON DELETE CASCADE,
    customer_key text NOT NULL,
    bucket timestamptz NOT NULL,
    events bigint NOT NULL,
    "values" bigint NOT NULL,
    sum numeric,
    min numeric,
    max numeric,
    PRIMARY KEY (meter_id, customer_key, bucket)
  ) WITH (fillfactor = 70)`.execute(db);
  await sql`CREATE INDEX meter_buckets_meter_bucket_idx ON meter_buckets (meter_id, bucket)`.execute(db);

  await sql`CREATE TABLE meter_bucket_values (
    meter_id uuid NOT NULL REFERENCES meters (id) ON DELETE CASCADE,
    customer_key text NOT NULL,
    bucket timestamptz NOT NULL,
    value jsonb NOT NULL,
    PRIMARY KEY (meter_id, customer_key, bucket, value)
  )`.execute(db);
  await sql`CREATE INDEX meter_bucket_values_meter_bucket_idx ON meter_bucket_values (meter_id, bucket)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("meter_bucket_values").ifExists().execute();
  await db.schema.dropTable("meter_buckets").ifExists().execute();
  await db.schema.dropTable("meters").ifExists().execute();
}
