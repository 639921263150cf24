/**
 * `npm start` on a fresh data folder: time until the server logs "ready" (database initialised
 * and started, migrations applied, HTTP listening, worker running), then the idle resident memory
 * of the API process and of the embedded PostgreSQL it started. Writes nothing but stdout.
 *   node --import tsx bench/startup.ts [runs=3]
 */
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rssKiB } from "./harness.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const runs = Number(process.argv[2] ?? 3);

const processes = (): { pid: number; ppid: number; cmdline: string }[] =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]);
        return [{ pid: Number(entry), ppid, cmdline: readFileSync(`/proc/${entry}/cmdline`, "utf8") }];
      } catch {
        return []; // Processes come and go while we look.
      }
    });

/** The embedded PostgreSQL: its postmaster (started with `-D <dir>`) and the workers it forked. */
function postgresRssKiB(dir: string): number {
  const all = processes();
  const postmaster = all.find((p) => p.cmdline.includes(dir));
  if (!postmaster) return 0;
  return [postmaster, ...all.filter((p) => p.ppid === postmaster.pid)].reduce((sum, p) => sum + rssKiB(p.pid), 0);
}

async function once(fresh: boolean, dataDir: string) {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('"msg":"ready"')) resolve();
    });
    child.on("exit", () => reject(new Error(`server exited before ready:\n${text}`)));
  });
  const readyMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const apiRss = rssKiB(child.pid!);
  const pgRss = postgresRssKiB(dataDir);
  child.kill("SIGTERM");
  await new Promise((resolve) => child.on("exit", resolve));
  return { fresh, readyMs: Math.round(readyMs), apiRssMiB: +(apiRss / 1024).toFixed(1), postgresRssMiB: +(pgRss / 1024).toFixed(1) };
}

const results = [];
for (let i = 0; i < runs; i += 1) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-startup-"));
  try {
    results.push(await once(true, dataDir));
    results.push(await once(false, dataDir));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
console.table(results);
