import { Ajv, type ValidateFunction } from "ajv";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FormObject, FormValue } from "./form-body.ts";

/**
 * Stripe's own OpenAPI document, the part the adapter uses (../shared/reference/stripe). It lives
 * outside the project: without it the stand-in still answers, and the checks it could not make are
 * counted (`uncheckedRequests`) instead of passing silently.
 */
export const stripeDocumentPath = fileURLToPath(new URL("../../../../shared/reference/stripe/openapi-stripe-subset.json", import.meta.url));
export const stripeDocumentAvailable = existsSync(stripeDocumentPath);

type Schema = {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  required?: string[];
  enum?: unknown[];
};
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface StripeDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/**
 * Parameters newer than the document (API 2024-04-10) that the pinned SDK (API 2026-01-28.clover)
 * legitimately sends: none so far. Each entry names the operation, the parameter and why.
 */
const NEWER_PARAMETERS: Record<string, string[]> = {};

let loaded: { document: StripeDocument; ajv: Ajv; validators: Map<string, ValidateFunction> } | null = null;

/**
 * OpenAPI 3.0's `nullable` in JSON Schema's words (Ajv takes `nullable` only beside a `type`;
 * Stripe's document also puts it beside `anyOf` and `$ref`).
 */
function withNulls(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNulls);
  if (node === null || typeof node !== "object") return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, withNulls(value)]));
  if (nullable !== true) return converted;
  if (typeof converted.type === "string")
    return { ...converted, type: [converted.type, "null"], ...(converted.enum ? { enum: [...(converted.enum as unknown[]), null] } : {}) };
  if (Array.isArray(converted.anyOf)) return { ...converted, anyOf: [...converted.anyOf, { type: "null" }] };
  return { anyOf: [converted, { type: "null" }] };
}

function load() {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(stripeDocumentPath, "utf8")) as StripeDocument;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  // Stripe's own format names: integer timestamps, and decimal amounts written as strings.
  ajv.addFormat("unix-time", { type: "number", validate: () => true });
  ajv.addFormat("decimal", /^-?\d+(\.\d+)?$/);
  ajv.addSchema(withNulls(document) as object, "stripe");
  loaded = { document, ajv, validators: new Map() };
  return loaded;
}

function validator(ref: string): ValidateFunction {
  const { ajv, validators } = load();
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: `stripe${ref}` });
    validators.set(ref, validate);
  }
  return validate;
}

const deref = (schema: Schema): Schema =>
  schema.$ref ? deref(load().document.components.schemas[schema.$ref.replace("#/components/schemas/", "")]!) : schema;

/** The document's operation for a request, and its path template (`/v1/payment_intents/{intent}`). */
export function findOperation(method: string, path: string): { template: string; operation: Operation } | null {
  const { document } = load();
  for (const [template, operations] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    const operation = operations[method.toLowerCase()];
    if (operation && pattern.test(path)) return { template, operation };
  }
  return null;
}

/** Form strings turned into the types the schema asks for (`"true"` → true, `"100"` → 100), so the schema can judge them. */
function coerce(schema: Schema, value: FormValue): unknown {
  const resolved = deref(schema);
  const branches = resolved.anyOf ?? resolved.oneOf;
  if (branches) {
    for (const branch of branches) {
      const attempt = coerce(branch, value);
      if (attempt !== value || typeof value !== "string") return attempt;
    }
    return value;
  }
  if (typeof value === "string") {
    if (resolved.type === "integer" && /^-?\d+$/.test(value)) return Number(value);
    if (resolved.type === "number" && value !== "" && !Number.isNaN(Number(value))) return Number(value);
    if (resolved.type === "boolean" && (value === "true" || value === "false")) return value === "true";
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => (resolved.items ? coerce(resolved.items, item) : item));
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      const property =
        resolved.properties?.[key] ?? (typeof resolved.additionalProperties === "object" ? resolved.additionalProperties : null);
      return [key, property ? coerce(property, inner) : inner];
    }),
  );
}

const describe = (errors: ValidateFunction["errors"]) =>
  (errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? ""} ${JSON.stringify(error.params)}`).join("; ");

/**
 * What the document says is wrong with a request: an unknown operation, unknown parameters,
 * wrong types, missing required ones. Empty when it is fine.
 */
export function requestProblems(method: string, path: string, params: FormObject): string[] {
  const found = findOperation(method, path);
  if (!found) return [`${method} ${path}: no such operation in Stripe's document`];
  const { operation, template } = found;
  const allowed = new Set(NEWER_PARAMETERS[`${method} ${template}`] ?? []);
  const problems: string[] = [];
  const given = Object.fromEntries(Object.entries(params).filter(([key]) => !allowed.has(key)));
  if (method === "GET" || method === "DELETE") {
    const query = (operation.parameters ?? []).filter((parameter) => parameter.in === "query");
    for (const key of Object.keys(given)) {
      const parameter = query.find((candidate) => candidate.name === key);
      if (!parameter) {
        problems.push(`${method} ${template}: unknown query parameter ${key}`);
        continue;
      }
      const validate = load().ajv.compile(parameter.schema);
      if (!validate(coerce(parameter.schema, given[key]!))) problems.push(`${method} ${template}: ${key} ${describe(validate.errors)}`);
    }
    return problems;
  }
  const schema = operation.requestBody?.content["application/x-www-form-urlencoded"]?.schema;
  if (!schema) return Object.keys(given).length ? [`${method} ${template}: takes no body`] : [];
  const validate = load().ajv.compile({ ...schema, additionalProperties: false });
  if (!validate(coerce(schema, given))) problems.push(`${method} ${template}: ${describe(validate.errors)}`);
  return problems;
}

/** The empty value of a required property the stand-in has no behaviour for: null where allowed, else empty of its type. */
function emptyOf(schema: Schema): unknown {
  const resolved = deref(schema);
  if (resolved.nullable) return null;
  if (resolved.anyOf) return emptyOf(resolved.anyOf[0]!);
  if (resolved.properties) return complete(resolved, {});
  if (resolved.enum) return resolved.enum[0];
  return resolved.type === "boolean"
    ? false
    : resolved.type === "integer" || resolved.type === "number"
      ? 0
      : resolved.type === "array"
        ? []
        : resolved.type === "object"
          ? {}
          : "";
}

/** The branch of a property's schema that describes an object (an expandable field's object, a nullable one's non-null side). */
function objectSchemaOf(schema: Schema): Schema | null {
  const resolved = deref(schema);
  if (resolved.properties) return resolved;
  for (const branch of resolved.anyOf ?? []) {
    const found = objectSchemaOf(branch);
    if (found) return found;
  }
  return null;
}

function complete(schema: Schema, object: Record<string, unknown>): Record<string, unknown> {
  const filled: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const inner =
      value !== null && typeof value === "object" && !Array.isArray(value) && schema.properties?.[key]
        ? objectSchemaOf(schema.properties[key])
        : null;
    filled[key] = inner ? complete(inner, value as Record<string, unknown>) : value;
  }
  for (const key of schema.required ?? []) if (!(key in filled)) filled[key] = emptyOf(schema.properties?.[key] ?? {});
  return filled;
}

/**
 * Fills the properties a schema requires but an object built by the stand-in leaves out (those it
 * has no behaviour for), with empty values, so that its answers are whole Stripe objects; the
 * object's own values are kept.
 */
export function completeObject(component: string, object: Record<string, unknown>): Record<string, unknown> {
  if (!stripeDocumentAvailable) return object;
  return complete(deref({ $ref: `#/components/schemas/${component}` }), object);
}

/** Throws when an object the stand-in answers is not what Stripe's document says it is: a stand-in bug. */
export function assertValidObject(component: string, object: unknown): void {
  if (!stripeDocumentAvailable) return;
  const validate = validator(`#/components/schemas/${component}`);
  if (!validate(object)) throw new Error(`stand-in answered an invalid ${component}: ${describe(validate.errors)}`);
}
