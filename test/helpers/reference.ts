import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { readFileSync } from "node:fs";
import { TestRunner, expect } from "vitest";
import { fullReferencePath, referenceAvailable, referencePath } from "./reference-path.ts";

export { REFERENCE_MISSING, referenceAvailable, referencePath } from "./reference-path.ts";

/** Counts a check that did not run on the running test (or, from a hook, on its file). */
function recordCheckNotRun(): void {
  const task = TestRunner.getCurrentTest() ?? TestRunner.getCurrentSuite().file;
  task.meta.referenceChecksNotRun = (task.meta.referenceChecksNotRun ?? 0) + 1;
}

interface OpenApiOperation {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

let cached: { ajv: Ajv2020; document: OpenApiDocument; full: OpenApiDocument } | null = null;

/**
 * The reference's unions are `oneOf`, yet several branches accept the same value (a repeating
 * discount also fits the once/forever shape, which does not forbid `duration_in_months`), so the
 * hosted service's own responses fail a strict `oneOf`. Clients decode the first branch that
 * fits; `anyOf` is that rule (docs/decisions.md, "Reference unions").
 */
function relaxOneOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relaxOneOf);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key === "oneOf" ? "anyOf" : key, relaxOneOf(value)]));
}

function load() {
  if (cached) return cached;
  const document = relaxOneOf(JSON.parse(readFileSync(referencePath, "utf8"))) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addFormat("uuid4", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i);
  ajv.addFormat("ipvanyaddress", true);
  ajv.addSchema(document, "reference");
  const full = relaxOneOf(JSON.parse(readFileSync(fullReferencePath, "utf8"))) as OpenApiDocument;
  ajv.addSchema(full, "full");
  cached = { ajv, document, full };
  return cached;
}

/** Asserts that `body` validates against the reference schema of `operationId`'s `status` response. */
export function expectReferenceResponse(operationId: string, status: number, body: unknown): void {
  if (!referenceAvailable) {
    recordCheckNotRun();
    return;
  }
  const { ajv, document, full } = load();
  // The subset first (what was served when it was cut), then the whole interface.
  for (const [name, source] of [
    ["reference", document],
    ["full", full],
  ] as const) {
    for (const [path, operations] of Object.entries(source.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.operationId !== operationId) continue;
        const pointer = `${name}#/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}/responses/${status}/content/application~1json/schema`;
        const validate = ajv.getSchema(pointer);
        if (!validate) throw new Error(`reference has no ${status} JSON response for ${operationId}`);
        const valid = validate(body);
        expect(valid ? [] : validate.errors, `${operationId} ${status} against the reference`).toEqual([]);
        return;
      }
    }
  }
  throw new Error(`reference has no operation ${operationId}`);
}

/**
 * Every operation of the reference (the subset served when it was cut, or the whole interface):
 * method, path, operationId and parameters as `in:name`.
 */
export function referenceOperations(
  source: "subset" | "full" = "subset",
): { method: string; path: string; operationId: string | undefined; parameters: string[] }[] {
  const { document, full } = load();
  return Object.entries((source === "subset" ? document : full).paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method,
      path,
      operationId: operation.operationId,
      parameters: (operation.parameters ?? []).map((parameter) => `${parameter.in}:${parameter.name}`).sort(),
    })),
  );
}
