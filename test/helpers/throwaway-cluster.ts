import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/db/embedded.ts";

/**
 * A PostgreSQL cluster of a test's own (never the machine's shared server), which the test may stop
 * and start again on the same port and data directory to play a database outage or restart.
 */
export interface ThrowawayCluster {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and deletes its data directory. */
  remove(): Promise<void>;
}

export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), "commerce-api-cluster-")), "data");
  const port = await freePort();
  const password = "throwaway";
  // Durable (not `ephemeral`): the data must survive a stop, as a real restart's does.
  const open = () => startEmbeddedPostgres({ dir, port, password });
  let running: EmbeddedDatabase | null = await open();
  const url = running.url();
  return {
    url,
    stop: async () => {
      await running?.stop();
      running = null;
    },
    start: async () => {
      running ??= await open();
    },
    remove: async () => {
      await running?.stop();
      running = null;
      await rm(path.dirname(dir), { recursive: true, force: true });
    },
  };
}
