import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "./embedded.ts";

export const APP_DATABASE = "commerce_api";

export interface ProvisionedDatabase {
  url: string;
  /** Stops the embedded server when this process started it. */
  stop(): Promise<void>;
  embedded: boolean;
}

/** Reads a secret file, or creates it with `generate()` and mode 0600 on first use. */
export async function readOrCreateSecretFile(file: string, generate: () => string): Promise<{ value: string; created: boolean }> {
  if (existsSync(file)) return { value: (await readFile(file, "utf8")).trim(), created: false };
  await mkdir(path.dirname(file), { recursive: true });
  const value = generate();
  await writeFile(file, `${value}\n`, { mode: 0o600, flag: "wx" });
  return { value, created: true };
}

/** The port of an embedded server already running on this data directory, if any. */
function runningEmbeddedPort(clusterDir: string): number | null {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = readFileSync(pidFile, "utf8").split("\n");
  const pid = Number(pidLine);
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  const port = Number(portLine);
  return Number.isInteger(port) && port > 0 ? port : null;
}

export async function ensureDatabaseExists(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

/**
 * `DATABASE_URL` when given; otherwise the embedded PostgreSQL in `DATA_DIR/postgres`: joined when
 * the server (or another command) already runs it, started otherwise.
 */
export async function provisionDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  port: number | undefined;
  log: (message: string) => void;
}): Promise<ProvisionedDatabase> {
  if (options.databaseUrl) return { url: options.databaseUrl, stop: async () => undefined, embedded: false };
  const clusterDir = path.join(options.dataDir, "postgres");
  const password = (
    await readOrCreateSecretFile(path.join(options.dataDir, "postgres-password"), () => randomBytes(18).toString("base64url"))
  ).value;
  const credentials = (port: number, database: string) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

  const runningPort = runningEmbeddedPort(clusterDir);
  if (runningPort !== null) {
    return { url: credentials(runningPort, APP_DATABASE), stop: async () => undefined, embedded: true };
  }
  const server: EmbeddedDatabase = await startEmbeddedPostgres({ dir: clusterDir, port: options.port, password, log: options.log });
  await ensureDatabaseExists(server.url("postgres"), APP_DATABASE);
  return { url: server.url(APP_DATABASE), stop: () => server.stop(), embedded: true };
}
