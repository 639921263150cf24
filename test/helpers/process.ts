import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { bundledEntry, PROCESS_ENTRY_POINTS } from "./project-bundle.ts";

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Time budgets for the tests that spawn processes, sized from whole-suite runs on two cores.
 * Measured (normal full run / full run with a second full run in parallel): server.test's first
 * test, two server starts, 9.6 s / 18.1 s (it had 30 s); its SIGTERM drain 4.5 s / 9.2 s; the
 * embedded PostgreSQL start 10.0 s / 12.1 s (90 s); cli.test's two-command tests 3.5 s / 6.9 s
 * (30 s); invoice-durability, two server starts and 40 PDFs, 8.0 s / 19.5 s (120 s). A wait for
 * output gets 60 s, and a test gets 120 s per process it starts: over six times the worst seen.
 */
export const PROCESS_WAIT_MS = 60_000;
export const perProcessStart = (starts: number) => starts * 120_000;

const running = new Set<ChildProcess>();

/** Kills what a test left running (a failed or timed-out test), so it does not load the next ones. */
export async function stopSpawned(): Promise<void> {
  const left = [...running];
  running.clear();
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output so far or to come. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Where a spawned process runs: the project root by default, and a terminal of its own on request. */
export interface SpawnOptions {
  cwd?: string;
  /** Under util-linux `script`, whose pseudo-terminal is the process's stdout, as in a person's shell. */
  terminal?: boolean;
}

/**
 * Runs a project entry point (one of PROCESS_ENTRY_POINTS, by its source path, then its arguments)
 * from the run's bundle of it, with the project root as its working directory as `npm start` has.
 */
export function spawnProject([entry, ...args]: [string, ...string[]], env: Record<string, string>, options: SpawnOptions = {}): Spawned {
  if (!(PROCESS_ENTRY_POINTS as readonly string[]).includes(entry))
    throw new Error(`${entry} is not bundled for tests: add it to PROCESS_ENTRY_POINTS`);
  const command = [process.execPath, bundledEntry(inject("projectBundleDir"), entry), ...args];
  const quoted = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
  const [file, ...argv] = options.terminal ? ["script", "--quiet", "--return", "--command", quoted, "/dev/null"] : command;
  const child = spawn(file!, argv, {
    cwd: options.cwd ?? projectRoot,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", NODE_ENV: "test", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let text = "";
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    output: () => text,
    exited,
    waitFor: (pattern, timeoutMs = PROCESS_WAIT_MS) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (!match) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => setTimeout(check, 50));
        check();
      }),
  };
}
