import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Logger } from "pino";
import type pg from "pg";
import type { Config } from "./config.ts";
import { ConfigError } from "./config.ts";
import type { Deps } from "./context.ts";
import { connect, type Connection } from "./db/connection.ts";
import { organizationClock } from "./values/clock.ts";
import { ensureEventPartitions } from "./modules/events/event-partitions.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { provisionDatabase, readOrCreateSecretFile } from "./db/provision.ts";

export interface Runtime {
  readonly deps: Deps;
  readonly pool: pg.Pool;
  readonly embedded: boolean;
  /**
   * The dependencies and pool of a job worker run in this process: a second pool on the primary,
   * of the same size, opened on the first call and closed with the runtime. The worker's jobs (a
   * renewal sweep holds three connections for minutes) then never take a connection a request is
   * waiting for, as when the worker runs in a process of its own (docs/decisions.md).
   */
  workerPool(): { deps: Deps; pool: pg.Pool };
  close(): Promise<void>;
}

/** SECRET_KEY, or in development a key generated once and kept in DATA_DIR. */
async function serverSecret(config: Config): Promise<string> {
  if (config.secretKey) return config.secretKey;
  if (config.env === "production") {
    throw new ConfigError("Invalid environment variable SECRET_KEY: required when NODE_ENV=production (at least 32 characters)");
  }
  const file = path.join(config.dataDir, "secret-key");
  return (await readOrCreateSecretFile(file, () => randomBytes(32).toString("base64url"))).value;
}

/** Database (embedded or DATABASE_URL), migrations and the service dependencies, ready to use. */
export async function openRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const secret = await serverSecret(config);
  const database = await provisionDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    log: (message) => logger.debug({ postgres: message.trim() }, "embedded postgres"),
  });
  const connection = connect(database.url, config.databasePoolSize, config.databaseConnectTimeoutMs);
  // The replica is migrated by replication: nothing is run on it, and it is not reached until a read needs it.
  const replica = config.databaseReadUrl ? connect(config.databaseReadUrl, config.databasePoolSize, config.databaseConnectTimeoutMs) : null;
  let worker: Connection | null = null;
  const close = async () => {
    await worker?.close();
    await replica?.close();
    await connection.close();
    await database.stop();
  };
  try {
    await migrateToLatest(connection.db, connection.pool);
    // The current month's partition and the next ones, before the first event (the job keeps them ahead).
    await ensureEventPartitions(connection.db, new Date());
  } catch (error) {
    await close();
    throw error;
  }
  const deps: Deps = { db: connection.db, readDb: replica?.db ?? connection.db, config, secret, now: organizationClock(() => new Date()) };
  return {
    deps,
    pool: connection.pool,
    embedded: database.embedded,
    workerPool: () => {
      worker ??= connect(database.url, config.databasePoolSize, config.databaseConnectTimeoutMs);
      // Reads the worker makes outside a transaction stay on the replica when there is one.
      return { deps: { ...deps, db: worker.db, readDb: replica?.db ?? worker.db }, pool: worker.pool };
    },
    close,
  };
}
