import type { Reporter, TestModule } from "vitest/node";
import { REFERENCE_MISSING, referencePath } from "./reference-path.ts";

/**
 * Prints one line at the end of a run in which reference checks did not run because
 * ../shared/reference is missing: response checks counted in the tests' (and, from hooks, files')
 * meta by `expectReferenceResponse`, and tests skipped with the `REFERENCE_MISSING` note. Task meta
 * travels from the test workers to this process with the results, whatever the pool.
 */
export default class ReferenceReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let checks = 0;
    let tests = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      const inHooks = testModule.meta().referenceChecksNotRun ?? 0;
      checks += inHooks;
      for (const test of testModule.children.allTests()) {
        const notRun = test.meta().referenceChecksNotRun ?? 0;
        checks += notRun;
        if (notRun > 0) tests += 1;
        const result = test.result();
        if (result.state === "skipped" && result.note === REFERENCE_MISSING) skipped += 1;
      }
    }
    if (checks === 0 && skipped === 0) return;
    process.stdout.write(
      `\n Reference checks not run: ${checks + skipped} (${checks} response checks in ${tests} tests and their hooks, ` +
        `${skipped} tests skipped): ${referencePath} is missing.\n\n`,
    );
  }
}
