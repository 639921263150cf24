import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { connect, type Connection } from "../../src/db/connection.ts";

export interface TestDatabase extends Connection {
  readonly url: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject("adminDatabaseUrl") });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database cloned from the run's template: one per test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = inject("templateDatabase");
  const runId = template.slice(template.lastIndexOf("_") + 1);
  const name = `commerce_test_${randomBytes(4).toString("hex")}_${runId}`;
  // Cloning needs the template free of other sessions; parallel files may clone at the same moment.
  for (let attempt = 0; ; attempt += 1) {
    try {
      await admin((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
      break;
    } catch (error) {
      if (attempt >= 20 || !String(error).includes("is being accessed by other users")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
  const url = new URL(inject("adminDatabaseUrl"));
  url.pathname = `/${name}`;
  const connection = connect(url.toString(), 20);
  return {
    ...connection,
    url: url.toString(),
    // The file's connections close before it ends; the server drops the database while the next
    // file starts (a drop takes a fifth of a second), and the run's teardown drops what is left.
    // pg's pool.end() resolves once its clients are asked to end, not once their sockets closed: a
    // forced drop at once can terminate a backend mid-goodbye, an error no listener is left to take.
    drop: async () => {
      await connection.close();
      setTimeout(() => {
        void admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
      }, 1_000).unref();
    },
  };
}
