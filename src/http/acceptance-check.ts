import { FormatRegistry, Type, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { isDateTime, isUuid4 } from "./validation.ts";

// TypeBox's compiled checks know a format only by this registry (global to TypeBox): the same checks as Ajv's.
FormatRegistry.Set("uuid4", isUuid4);
if (isDateTime) FormatRegistry.Set("date-time", isDateTime);

/**
 * Keywords a TypeBox compiled check and the body validator's Ajv (`bodyAjv`, validation.ts) read
 * alike, annotations included; any other keyword (a `default` Ajv would fill in, `propertyNames`, …)
 * makes {@link compileAcceptanceCheck} refuse the schema.
 */
const SHARED_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "anyOf",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "format",
  "pattern",
  "title",
  "description",
]);

const isSchema = (value: unknown): value is TSchema => typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema as TypeBox must read it to accept no value `bodyAjv` refuses (see {@link compileAcceptanceCheck}). */
function alikeSchema(node: TSchema, at: string): TSchema {
  const refuse = (why: string) => new Error(`compileAcceptanceCheck: ${at || "/"} ${why}`);
  const unknown = Object.keys(node).find((key) => !SHARED_KEYWORDS.has(key));
  if (unknown !== undefined) throw refuse(`has "${unknown}", which TypeBox and Ajv do not check alike`);
  const { format, pattern, minLength, maxLength, properties, additionalProperties, anyOf, items } = node as Record<string, unknown>;
  if (format !== undefined && !(typeof format === "string" && FormatRegistry.Has(format))) throw refuse(`has a format unknown to TypeBox`);
  // TypeBox counts UTF-16 units, Ajv code points: as many or more units, so a maximum is only stricter, a minimum above 1 looser.
  if (typeof minLength === "number" && minLength > 1) throw refuse("has a minLength above 1");
  if (typeof pattern === "string") {
    if (format !== undefined) throw refuse("has both a pattern and a format");
    // Ajv compiles patterns with the `u` flag; TypeBox's RegExp kind keeps the flags it is given.
    const lengths = { ...(typeof minLength === "number" ? { minLength } : {}), ...(typeof maxLength === "number" ? { maxLength } : {}) };
    return Type.RegExp(new RegExp(pattern, "u"), lengths);
  }
  const alike: Record<string, unknown> = { ...node };
  if (isSchema(properties)) {
    alike.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, alikeSchema(value as TSchema, `${at}/${key}`)]),
    );
  }
  if (isSchema(additionalProperties)) alike.additionalProperties = alikeSchema(additionalProperties, `${at}/*`);
  if (Array.isArray(anyOf)) alike.anyOf = anyOf.map((branch, i) => alikeSchema(branch as TSchema, `${at}/anyOf/${i}`));
  if (isSchema(items)) alike.items = alikeSchema(items, `${at}/items`);
  return alike as TSchema;
}

/**
 * A fast acceptance check for a body schema, to run before its Ajv validator: TypeBox's compiled
 * check, which answers true only for a value `bodyAjv` (validation.ts) accepts as it is. Ajv runs without
 * coercion, removes no property and fills no default here (`alikeSchema` refuses a schema with a
 * `default`), so accepting never changes the value; numbers must be finite in both
 * (`strictNumbers`, `Number.isFinite`); formats are the same functions; patterns carry Ajv's `u`
 * flag. A false answer says nothing: the caller runs Ajv, whose errors make the 422.
 */
export function compileAcceptanceCheck(schema: TSchema): (value: unknown) => boolean {
  const check = TypeCompiler.Compile(alikeSchema(schema, ""));
  return (value) => check.Check(value);
}
