import os from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Fault-injection tests that stop and start PostgreSQL clusters and kill server processes: their own
 * vitest run (`vitest.faults.config.ts`), one file at a time, beside the suite and the static checks
 * in `npm test`. They mostly wait, and their waits allow for a loaded machine (measured beside both
 * under a load average of 5–7: bench/README.md, "Test suite time").
 */
export const FAULT_TESTS = [
  "test/jobs/worker-crash-restarts.test.ts",
  "test/jobs/worker-lease-restarts.test.ts",
  "test/reliability/database-outage.test.ts",
  "test/reliability/read-replica.test.ts",
];

/** What both runs share. */
export const sharedTestOptions = {
  globalSetup: ["./test/global-setup.ts"],
  // The default output, plus one line when reference checks could not run (../shared missing).
  reporters: ["default", "./test/helpers/reference-reporter.ts", "./test/helpers/skip-reporter.ts"],
  pool: "forks" as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    ...sharedTestOptions,
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...FAULT_TESTS],
    // Each file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
    // vitest's default for `run` is one worker per core less one: on two cores, one file at a time.
    // The files mostly wait (PostgreSQL, spawned servers, Chromium), so one per core, at least two:
    // on two cores the suite went from 461 s to 305 s (bench/README.md, "Test suite time").
    maxWorkers: Math.max(os.availableParallelism(), 2),
    // A worker imports the modules once for all its files (import was 80 of 467 s); each file still
    // has its own database and app. Documents rendered by earlier files must not change later ones
    // (test/documents/shared-faces.test.ts).
    isolate: false,
  },
});
