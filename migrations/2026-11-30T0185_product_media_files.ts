import { sql, type Kysely } from "kysely";

/**
 * A product's medias are uploaded `product_media` files: each attachment names its file (its id is
 * the media's id in answers), once per product. Rows from before uploads existed keep no file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE product_medias ADD COLUMN file_id uuid REFERENCES files (id) ON DELETE CASCADE`.execute(db);
  await sql`CREATE UNIQUE INDEX product_medias_product_file ON product_medias (product_id, file_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX product_medias_product_file`.execute(db);
  await sql`ALTER TABLE product_medias DROP COLUMN file_id`.execute(db);
}
