import type { Reporter, TestModule } from "vitest/node";
import { BROWSER_MISSING, chromiumAvailable } from "./chromium.ts";

/** One line at the end of a run whose browser tests were skipped for want of Chromium. */
export default class BrowserReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (chromiumAvailable || !testModules.some((m) => m.moduleId.includes("/test/browser/"))) return;
    process.stdout.write(`\n ${BROWSER_MISSING}\n\n`);
  }
}
