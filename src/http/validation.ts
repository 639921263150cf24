import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import type { ValidationIssue } from "./errors.ts";

/**
 * Request validation. Bodies are validated without type coercion (coercing `null` into `""` would
 * silently change meaning inside nullable unions); query strings and path parameters are text on
 * the wire, so they are coerced, and repeated query keys become arrays.
 */
export const UUID4_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export const isUuid4 = (value: string): boolean => UUID4_PATTERN.test(value);

function buildAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: false,
    useDefaults: true,
    removeAdditional: false,
    // JSON.parse reads a number beyond double range (1e400) as Infinity: not a number a client can mean.
    strictNumbers: true,
    ...options,
  });
  addFormats.default(ajv);
  ajv.addFormat("uuid4", UUID4_PATTERN);
  if (isDateTime) ajv.addFormat("date-time", { type: "string", validate: isDateTime });
  return ajv;
}

/**
 * A pure check that remembers its last answer: the events of an ingest batch mostly carry one
 * timestamp, checked a thousand times in a row (the full date-time check parses it each time).
 */
function lastAnswerKept(check: (value: string) => boolean): (value: string) => boolean {
  let lastValue: string | undefined;
  let lastAnswer = false;
  return (value) => {
    if (value !== lastValue) {
      lastAnswer = check(value);
      lastValue = value;
    }
    return lastAnswer;
  };
}

const fullDateTime = fullFormats["date-time"];
/** ajv-formats' full date-time check (RFC 3339, with a time zone), shared by Ajv and the acceptance checks (acceptance-check.ts). */
export const isDateTime =
  typeof fullDateTime === "object" && "validate" in fullDateTime && typeof fullDateTime.validate === "function"
    ? lastAnswerKept(fullDateTime.validate as (value: string) => boolean)
    : undefined;

export const bodyAjv = buildAjv({ coerceTypes: false });
export const paramsAjv = buildAjv({ coerceTypes: "array" });
/** Stops at a body's first error: for bodies too large to collect every error of. */
const firstErrorAjv = buildAjv({ coerceTypes: false, allErrors: false });

/**
 * Bodies with more JSON values than this report only their first error. Collecting every error
 * of millions of values (a 10 MiB array of `{}`) would hold millions of error objects: gigabytes.
 */
export const ALL_ERRORS_MAX_VALUES = 10_000;

/** Counts a parsed body's values up to `limit` (bodies are at most 64 levels deep, see json-body.ts). */
function exceedsValues(value: unknown, limit: number): boolean {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (++count > limit) return true;
    if (typeof current === "object" && current !== null) {
      for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push(child);
    }
  }
  return false;
}

export interface BodyValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** A body schema's validator: every error of an ordinary body, the first error of a huge one. */
export function compileBodyValidator(schema: object): BodyValidator {
  const everyError = bodyAjv.compile(schema);
  let firstError: ValidateFunction | undefined;
  const validate: BodyValidator = (data) => {
    if (!exceedsValues(data, ALL_ERRORS_MAX_VALUES)) {
      const valid = everyError(data);
      validate.errors = everyError.errors;
      return valid;
    }
    firstError ??= firstErrorAjv.compile(schema);
    const valid = firstError(data);
    validate.errors = firstError.errors;
    return valid;
  };
  return validate;
}

export type HttpPart = "body" | "querystring" | "params" | "headers";

const LOC_ROOT: Record<string, string> = { body: "body", querystring: "query", params: "path", headers: "header" };

const TYPE_MESSAGES: Record<string, [type: string, msg: string]> = {
  string: ["string_type", "Input should be a valid string"],
  integer: ["int_type", "Input should be a valid integer"],
  number: ["float_type", "Input should be a valid number"],
  boolean: ["bool_type", "Input should be a valid boolean"],
  object: ["model_attributes_type", "Input should be a valid dictionary or object to extract fields from"],
  array: ["list_type", "Input should be a valid list"],
  null: ["none_required", "Input should be None"],
};

const FORMAT_MESSAGES: Record<string, [type: string, msg: string]> = {
  uuid: ["uuid_parsing", "Input should be a valid UUID"],
  uuid4: ["uuid_parsing", "Input should be a valid UUID version 4"],
  "date-time": ["datetime_from_date_parsing", "Input should be a valid datetime"],
  date: ["date_from_datetime_parsing", "Input should be a valid date"],
  email: ["value_error", "value is not a valid email address"],
  uri: ["url_parsing", "Input should be a valid URL"],
  ipv4: ["ip_any_address", "value is not a valid IPv4 or IPv6 address"],
};

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`: the expected values of a literal, worded as the reference words them. */
export const quoteList = (values: readonly unknown[]): string => {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length <= 1 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
};

function pointerToLoc(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

/** A list or dictionary with too many or too few entries, worded as the reference words it. */
function lengthIssue(
  fieldType: "List" | "Dictionary",
  bound: "at most" | "at least",
  limit: unknown,
): Omit<ValidationIssue, "loc" | "input"> {
  const most = bound === "at most";
  const items = most || limit !== 1 ? "items" : "item";
  return {
    type: most ? "too_long" : "too_short",
    msg: `${fieldType} should have ${bound} ${String(limit)} ${items} after validation`,
    ctx: { field_type: fieldType, [most ? "max_length" : "min_length"]: limit },
  };
}

function describe(error: ErrorObject): Omit<ValidationIssue, "loc" | "input"> {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return { type: "missing", msg: "Field required" };
    case "type": {
      const [type, msg] = TYPE_MESSAGES[String(p.type).split(",")[0] ?? ""] ?? ["type_error", error.message ?? "Invalid type"];
      return { type, msg };
    }
    case "format": {
      const [type, msg] = FORMAT_MESSAGES[String(p.format)] ?? ["value_error", `Input should match format '${String(p.format)}'`];
      return { type, msg };
    }
    case "minLength":
      return {
        type: "string_too_short",
        msg: `String should have at least ${String(p.limit)} character${p.limit === 1 ? "" : "s"}`,
        ctx: { min_length: p.limit },
      };
    case "maxLength":
      return {
        type: "string_too_long",
        msg: `String should have at most ${String(p.limit)} character${p.limit === 1 ? "" : "s"}`,
        ctx: { max_length: p.limit },
      };
    case "minimum":
      return { type: "greater_than_equal", msg: `Input should be greater than or equal to ${String(p.limit)}`, ctx: { ge: p.limit } };
    case "exclusiveMinimum":
      return { type: "greater_than", msg: `Input should be greater than ${String(p.limit)}`, ctx: { gt: p.limit } };
    case "maximum":
      return { type: "less_than_equal", msg: `Input should be less than or equal to ${String(p.limit)}`, ctx: { le: p.limit } };
    case "exclusiveMaximum":
      return { type: "less_than", msg: `Input should be less than ${String(p.limit)}`, ctx: { lt: p.limit } };
    case "enum": {
      const expected = quoteList((error.schema as unknown[]) ?? []);
      return { type: "enum", msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case "const": {
      const expected = quoteList([p.allowedValue]);
      return { type: "literal_error", msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case "pattern":
      return { type: "string_pattern_mismatch", msg: `String should match pattern '${String(p.pattern)}'`, ctx: { pattern: p.pattern } };
    case "maxItems":
      return lengthIssue("List", "at most", p.limit);
    case "minItems":
      return lengthIssue("List", "at least", p.limit);
    case "maxProperties":
      return lengthIssue("Dictionary", "at most", p.limit);
    case "minProperties":
      return lengthIssue("Dictionary", "at least", p.limit);
    case "additionalProperties":
      return { type: "extra_forbidden", msg: "Extra inputs are not permitted" };
    case "multipleOf":
      return { type: "multiple_of", msg: `Input should be a multiple of ${String(p.multipleOf)}`, ctx: { multiple_of: p.multipleOf } };
    default:
      return { type: "value_error", msg: error.message ?? "Invalid value" };
  }
}

/**
 * Ajv reports one error per failed branch of a union, plus the union's own error. A caller wants
 * the reason their value is wrong: drop the union summaries and the "should be null" branch of
 * nullable fields, unless that is all there is for a location.
 */
function dropUnionNoise(errors: ErrorObject[]): ErrorObject[] {
  const meaningful = errors.filter(
    (e) => e.keyword !== "anyOf" && e.keyword !== "oneOf" && !(e.keyword === "type" && e.params.type === "null"),
  );
  const coveredPaths = new Set(meaningful.map((e) => e.instancePath));
  const fallback = errors.filter((e) => (e.keyword === "anyOf" || e.keyword === "oneOf") && !coveredPaths.has(e.instancePath));
  return [...meaningful, ...fallback];
}

export function toValidationIssues(part: HttpPart, errors: ErrorObject[]): ValidationIssue[] {
  const root = LOC_ROOT[part] ?? part;
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of dropUnionNoise(errors)) {
    const loc: (string | number)[] = [root, ...pointerToLoc(error.instancePath)];
    if (error.keyword === "required") loc.push(String(error.params.missingProperty));
    if (error.keyword === "additionalProperties") loc.push(String(error.params.additionalProperty));
    const described = describe(error);
    const key = `${JSON.stringify(loc)}|${described.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const input =
      error.keyword === "additionalProperties" && isRecord(error.data) ? error.data[String(error.params.additionalProperty)] : error.data;
    issues.push({ loc, msg: described.msg, type: described.type, input: input ?? null, ...(described.ctx ? { ctx: described.ctx } : {}) });
  }
  return issues;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
