import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The reference OpenAPI document lives outside the project (../shared); a clone without it still
 * passes its tests, and these checks then report themselves instead of passing silently: each
 * response check that could not run is counted in its test's meta (`expectReferenceResponse`),
 * each test that needs the document as a whole is skipped with `REFERENCE_MISSING` as its note,
 * and the reporter (reference-reporter.ts) prints one line with the counts at the end of the run.
 */
export const referencePath = fileURLToPath(new URL("../../../shared/reference/openapi-2026-04-subset.json", import.meta.url));
export const referenceAvailable = existsSync(referencePath);
/** The whole interface: operations served since the subset was cut are checked against it. */
export const fullReferencePath = fileURLToPath(new URL("../../../shared/reference/openapi-2026-04.json", import.meta.url));

/** The note of a test skipped because the reference is missing; the reporter counts these. */
export const REFERENCE_MISSING = "the reference OpenAPI document (../shared/reference) is missing";

declare module "vitest" {
  interface TaskMeta {
    /** Response checks against the reference that did not run because the document is missing. */
    referenceChecksNotRun?: number;
  }
}
