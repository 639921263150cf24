import type { Reporter, TestModule } from "vitest/node";
import { BROWSER_MISSING, chromiumAvailable } from "./chromium.ts";
import { REPLICA_UNAVAILABLE } from "./streaming-replica.ts";

/** Tests that need something the machine may lack: the files they live in, and why they were skipped. */
const CONDITIONAL = [
  { files: "/test/browser/", missing: chromiumAvailable ? null : BROWSER_MISSING },
  { files: "/test/reliability/read-replica.test.ts", missing: REPLICA_UNAVAILABLE },
];

/** One line at the end of a run per kind of test that was skipped for want of a tool (Chromium, PostgreSQL's server tools). */
export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    for (const { files, missing } of CONDITIONAL) {
      if (missing && testModules.some((m) => m.moduleId.includes(files))) process.stdout.write(`\n ${missing}\n\n`);
    }
  }
}
