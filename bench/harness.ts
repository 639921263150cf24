/**
 * What the HTTP benches share: the server under load runs in a child process (the same bench file
 * with `--serve`), so the load generator in the parent never shares its event loop.
 */
import type autocannon from "autocannon";
import { fork, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { freePort } from "../src/db/embedded.ts";

/**
 * Parent: starts `benchUrl` again with `--serve`, waits for the message it sends once ready, runs
 * `measure` with it, then asks the child to stop; a child still alive after `limitSeconds` (counted
 * from ready, as seeding may come first) is killed. BENCH_PROFILE=<dir> writes the server's CPU
 * profile there.
 */
export async function withServerProcess<Ready>(
  benchUrl: string,
  limitSeconds: number,
  measure: (ready: Ready) => Promise<void>,
): Promise<void> {
  const child = fork(fileURLToPath(benchUrl), ["--serve"], {
    execArgv: ["--import", "tsx", ...(process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [])],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Ready));
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), limitSeconds * 1000);
  // Machines of one kind differ (CPU models vary between hosts): every result names its own.
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  );
  try {
    await measure(ready);
  } finally {
    clearTimeout(killer);
    child.send("stop");
  }
}

/**
 * The real server (`src/server.ts`: API and worker in one process, as `npm start` runs it) as a
 * child process, quiet (request logging would cost it CPU); resolves once `/readyz` answers 200.
 */
export async function startServerProcess(env: Record<string, string>): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: "warn" },
    stdio: "inherit",
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ;) {
    if (child.exitCode !== null) throw new Error("server exited before ready");
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error("server not ready in 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The worker starts right after the listener; give it its first poll.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return { url, pid: child.pid!, stop: () => (child.kill("SIGTERM"), exited) };
}

/** A process's resident memory in KiB, from /proc (Linux). */
export function rssKiB(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib);
}

/**
 * CPU seconds (user + system) a process has used, from /proc (Linux; clock ticks of 10 ms). The
 * difference over a measurement, divided by its requests, is a server's CPU per request: unlike
 * throughput, it hardly moves with what else runs on the machine.
 */
export function cpuSeconds(pid: number): number {
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Child: tells the parent it is ready, and on the parent's word runs `stop` and exits. */
export function announceReady(ready: object, stop: () => Promise<void>): void {
  process.send?.(ready);
  process.on("message", () => {
    void stop().then(() => process.exit(0));
  });
}

interface CompareSettings {
  rounds: number;
  seconds: number;
  connections: number;
  poolSize: number;
  /** The target share, in percent (default 75). */ floor?: number;
}

/**
 * The app against a bare `node:http` server answering the same request: a warm-up of each, then
 * interleaved rounds (so drift in the machine's load hits both alike), reported as means and the
 * app's share of the bare server's throughput.
 */
export async function compareWithBare(
  load: (port: number, seconds: number) => Promise<autocannon.Result>,
  ports: { app: number; bare: number },
  settings: CompareSettings,
): Promise<void> {
  await compareInterleaved(
    { name: "bare", load: (seconds) => load(ports.bare, seconds) },
    { name: "app", load: (seconds) => load(ports.app, seconds) },
    settings,
  );
}

/**
 * Two loads side by side in one run: a warm-up of each, then interleaved rounds (so drift in the
 * machine's load hits both alike), reported as means and `subject`'s share of `baseline`'s throughput.
 * The rounds are returned, for figures a bench adds of its own (a p95, say).
 */
export async function compareInterleaved<Result extends autocannon.Result>(
  baseline: { name: string; load: (seconds: number) => Promise<Result> },
  subject: { name: string; load: (seconds: number) => Promise<Result> },
  settings: CompareSettings,
): Promise<{ baseline: Result; subject: Result }[]> {
  await baseline.load(2);
  await subject.load(2);
  const rounds: { baseline: Result; subject: Result }[] = [];
  for (let round = 0; round < settings.rounds; round += 1) {
    rounds.push({ baseline: await baseline.load(settings.seconds), subject: await subject.load(settings.seconds) });
  }
  const mean = (pick: (r: (typeof rounds)[number]) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  const width = Math.max(baseline.name.length, subject.name.length, 6);
  const report = (which: "baseline" | "subject", name: string) =>
    `${name.padEnd(width)} ${mean((r) => r[which].requests.average)
      .toFixed(0)
      .padStart(
        6,
      )} req/s   p50 ${mean((r) => r[which].latency.p50).toFixed(0)} ms   p99 ${mean((r) => r[which].latency.p99).toFixed(0)} ms   errors ${mean((r) => r[which].errors + r[which].non2xx)}`;
  console.log(
    `${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.seconds} s per load, pool ${settings.poolSize}`,
  );
  console.log(report("baseline", baseline.name));
  console.log(report("subject", subject.name));
  const ratio = `${subject.name}/${baseline.name}`;
  for (const [i, r] of rounds.entries())
    console.log(`  round ${i + 1}: ${ratio} ${((r.subject.requests.average / r.baseline.requests.average) * 100).toFixed(1)}%`);
  console.log(
    `${subject.name} / ${baseline.name} throughput: ${((mean((r) => r.subject.requests.average) / mean((r) => r.baseline.requests.average)) * 100).toFixed(1)}% (floor ${settings.floor ?? 75}%)`,
  );
  return rounds;
}
