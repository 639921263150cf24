import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../src/db/embedded.ts";

export interface BenchDatabase {
  /** Connection string of a fresh, empty database. */
  url: string;
  /** Its name, unique per run (handy as a slug suffix). */
  name: string;
  /** Drops the database, and stops the embedded server when one was started. */
  stop(): Promise<void>;
}

/** A fresh database on DATABASE_URL's server, or on an embedded PostgreSQL started for the run. */
export async function benchDatabase(prefix: string): Promise<BenchDatabase> {
  const clusterDir = process.env.DATABASE_URL ? null : await mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
  // Under root, PostgreSQL runs as the `postgres` user, which must be able to enter this folder.
  if (clusterDir) await chmod(clusterDir, 0o755);
  const embedded = clusterDir
    ? await startEmbeddedPostgres({ dir: path.join(clusterDir, "pg"), password: "bench", ephemeral: true })
    : null;
  const adminUrl = process.env.DATABASE_URL ?? embedded!.url("postgres");
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    stop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
      await embedded?.stop();
      if (clusterDir) await rm(clusterDir, { recursive: true, force: true });
    },
  };
}
