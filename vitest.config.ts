import { configDefaults, defineConfig } from "vitest/config";

/**
 * Fault-injection tests that stop and start PostgreSQL clusters and kill server processes. Their
 * waits assume a machine that is not also running the rest of the suite, so they run after it, one
 * file at a time (`vitest.faults.config.ts`, the last part of `npm test`).
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
    // A worker imports the modules once for all its files (import was 80 of 467 s); each file still
    // has its own database and app. Documents rendered by earlier files must not change later ones
    // (test/documents/shared-faces.test.ts).
    isolate: false,
  },
});
