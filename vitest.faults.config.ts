import { defineConfig } from "vitest/config";
import { FAULT_TESTS, sharedTestOptions } from "./vitest.config.ts";

/** The fault-injection tests alone, one file at a time, after the rest of the suite (see FAULT_TESTS). */
export default defineConfig({
  test: { ...sharedTestOptions, include: FAULT_TESTS, fileParallelism: false },
});
