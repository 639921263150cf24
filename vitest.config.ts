import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./test/global-setup.ts"],
    include: ["test/**/*.test.ts"],
    // The default output, plus one line when reference checks could not run (../shared missing).
    reporters: ["default", "./test/helpers/reference-reporter.ts", "./test/helpers/browser-reporter.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database cloned from a migrated template, so files run in parallel.
    fileParallelism: true,
  },
});
