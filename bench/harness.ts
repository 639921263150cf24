/**
 * What the HTTP benches share: the server under load runs in a child process (the same bench file
 * with `--serve`), so the load generator in the parent never shares its event loop.
 */
import type autocannon from "autocannon";
import { fork } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

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

/** Child: tells the parent it is ready, and on the parent's word runs `stop` and exits. */
export function announceReady(ready: object, stop: () => Promise<void>): void {
  process.send?.(ready);
  process.on("message", () => {
    void stop().then(() => process.exit(0));
  });
}

type Round = { bare: autocannon.Result; app: autocannon.Result };

/**
 * The app against a bare `node:http` server answering the same request: a warm-up of each, then
 * interleaved rounds (so drift in the machine's load hits both alike), reported as means and the
 * app's share of the bare server's throughput.
 */
export async function compareWithBare(
  load: (port: number, seconds: number) => Promise<autocannon.Result>,
  ports: { app: number; bare: number },
  settings: {
    rounds: number;
    seconds: number;
    connections: number;
    poolSize: number;
    /** The target share, in percent (default 75). */ floor?: number;
  },
): Promise<void> {
  await load(ports.bare, 2);
  await load(ports.app, 2);
  const rounds: Round[] = [];
  for (let round = 0; round < settings.rounds; round += 1) {
    rounds.push({ bare: await load(ports.bare, settings.seconds), app: await load(ports.app, settings.seconds) });
  }
  const mean = (pick: (r: Round) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  const report = (which: keyof Round) =>
    `${which.padEnd(6)} ${mean((r) => r[which].requests.average)
      .toFixed(0)
      .padStart(
        6,
      )} req/s   p50 ${mean((r) => r[which].latency.p50).toFixed(0)} ms   p99 ${mean((r) => r[which].latency.p99).toFixed(0)} ms   errors ${mean((r) => r[which].errors + r[which].non2xx)}`;
  console.log(
    `${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.seconds} s per server, pool ${settings.poolSize}`,
  );
  console.log(report("bare"));
  console.log(report("app"));
  for (const [i, r] of rounds.entries())
    console.log(`  round ${i + 1}: app/bare ${((r.app.requests.average / r.bare.requests.average) * 100).toFixed(1)}%`);
  console.log(
    `app / bare throughput: ${((mean((r) => r.app.requests.average) / mean((r) => r.bare.requests.average)) * 100).toFixed(1)}% (floor ${settings.floor ?? 75}%)`,
  );
}
