import fc from "fast-check";

/**
 * The part of JSON Schema our OpenAPI document uses (TypeBox output): no `$ref`, `allOf` or `not`.
 * The one published converter (json-schema-fast-check) targets fast-check 1 and an old faker, so
 * this small one stands in (docs/decisions.md, "Fuzzing and the authorization matrix").
 */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  minProperties?: number;
  maxProperties?: number;
}

/** Real ids to put where a field or parameter of that name takes an id, some of the time. */
export type IdSource = (name: string) => string | undefined;

/** Generated strings and collections stay this much above their minimum: enough variety, small requests. */
const SPREAD = { string: 24, items: 3, keys: 3 };
const INT32 = 2 ** 31 - 1;

function stringOf(schema: JsonSchema, name: string, ids: IdSource): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  // A pattern fixes its own lengths (a base64 digest is 44 characters): no spread caps it.
  const max = schema.maxLength ?? (schema.pattern ? Number.POSITIVE_INFINITY : min + SPREAD.string);
  const fits = (value: string) => value.length >= min && value.length <= max;
  const id = ids(name);
  const generated = generatedString(schema, min, max, fits);
  return id === undefined ? generated : fc.oneof(generated, fc.constant(id));
}

function generatedString(schema: JsonSchema, min: number, max: number, fits: (value: string) => boolean): fc.Arbitrary<string> {
  switch (schema.format) {
    case "uuid":
    case "uuid4":
      return fc.uuid({ version: 4 });
    case "email":
      return fc.emailAddress().filter(fits);
    case "date-time":
      return fc
        .date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2030-12-31T00:00:00Z"), noInvalidDate: true })
        .map((date) => date.toISOString());
    case "uri":
      return fc.webUrl().filter(fits);
    case "duration":
      return fc.constantFrom("P1D", "PT1H", "P1M");
    default:
      return schema.pattern
        ? patterned(schema.pattern).filter(fits)
        : fc.string({ minLength: min, maxLength: Math.min(max, min + SPREAD.string) });
  }
}

/** Strings matching a pattern; fast-check cannot invert lookaheads (the decimal amounts), so those get decimals. */
function patterned(pattern: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return fc.tuple(fc.nat({ max: 99_999 }), fc.nat({ max: 99 })).map(([units, cents]) => `${units}.${String(cents).padStart(2, "0")}`);
  }
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 0) : -1_000);
  const high = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 0) : low + 100_000);
  if (integer) return fc.integer({ min: Math.max(low, -INT32), max: Math.min(high, INT32) });
  return fc.double({
    min: low,
    max: high,
    minExcluded: schema.exclusiveMinimum !== undefined && schema.minimum === undefined,
    maxExcluded: schema.exclusiveMaximum !== undefined && schema.maximum === undefined,
    noNaN: true,
    noDefaultInfinity: true,
  });
}

function objectOf(schema: JsonSchema, ids: IdSource): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const known = fc.record(Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, arbitraryOf(property, ids, key)])), {
    requiredKeys: (schema.required ?? []).filter((key) => key in properties),
  });
  const extra = schema.additionalProperties;
  if (typeof extra !== "object") return known;
  const keys = schema.propertyNames
    ? stringOf({ type: "string", ...schema.propertyNames }, "", ids)
    : fc.string({ minLength: 1, maxLength: 12 });
  const maxKeys = Math.min(schema.maxProperties ?? SPREAD.keys, (schema.minProperties ?? 0) + SPREAD.keys);
  return fc
    .tuple(known, fc.dictionary(keys, arbitraryOf(extra, ids), { minKeys: schema.minProperties ?? 0, maxKeys }))
    .map(([fixed, free]) => ({ ...free, ...fixed }));
}

/**
 * Values valid for `schema`. `name` is the field (or, for an array's items, the array) holding the
 * value: an id field named after a resource (`customer_id`, `products`) takes a real id some of the time.
 */
export function arbitraryOf(schema: JsonSchema, ids: IdSource, name = ""): fc.Arbitrary<unknown> {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((branch) => arbitraryOf(branch, ids, name)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => arbitraryOf({ ...schema, type }, ids, name)));
  switch (schema.type) {
    case "string":
      return stringOf(schema, name, ids);
    case "integer":
      return numberOf(schema, true);
    case "number":
      return numberOf(schema, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = arbitraryOf(schema.items ?? {}, ids, name);
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? minLength + SPREAD.items, minLength + SPREAD.items);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
        : fc.array(items, { minLength, maxLength });
    }
    case "object":
      return objectOf(schema, ids);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** JSON text that `JSON.stringify` cannot produce (numbers beyond a double), spliced in by `toJsonText`. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** What an invalid request puts somewhere in a valid one: wrong types, overlong and hostile strings, deep nesting, huge numbers. */
export const HOSTILE_VALUES: readonly unknown[] = [
  12_345,
  -1,
  "text",
  "",
  "not-a-member-of-any-enum",
  "x".repeat(10_001),
  "nul\u0000byte",
  "lone \ud800 surrogate",
  true,
  null,
  [],
  {},
  [{ nested: { deeper: [1, "two", null] } }],
  JSON.parse("[".repeat(100) + "]".repeat(100)),
  new RawJson("9007199254740993"),
  new RawJson("-9007199254740993"),
  new RawJson("1e400"),
  new RawJson("123456789012345678901234567890"),
];

/** JSON text of a value that may hold `RawJson` parts. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, part: unknown) => {
    if (!(part instanceof RawJson)) return part;
    raws.push(part.text);
    return `\u0001raw${raws.length - 1}\u0001`;
  });
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_match, index: string) => raws[Number(index)]!);
}

type Container = Record<string, unknown> | unknown[];

/** Every container within a value (the value itself first) with each of its keys. */
function slots(value: unknown): { container: Container; key: string | number }[] {
  if (value === null || typeof value !== "object" || value instanceof RawJson) return [];
  const container = value as Container;
  const keys: (string | number)[] = Array.isArray(container) ? container.map((_, index) => index) : Object.keys(container);
  return keys.flatMap((key) => [{ container, key }, ...slots((container as Record<string | number, unknown>)[key])]);
}

/**
 * A valid value turned invalid at one place: a field dropped, or replaced by a hostile value, or the
 * whole value replaced. `choice` picks the place and the change, so fast-check drives (and shrinks) it.
 */
export function mutate(value: unknown, choice: { place: number; hostile: number; drop: boolean }): unknown {
  const copy: unknown = structuredClone(value);
  const places = slots(copy);
  const hostile = HOSTILE_VALUES[choice.hostile % HOSTILE_VALUES.length];
  if (places.length === 0 || choice.place % (places.length + 1) === places.length) return hostile;
  const { container, key } = places[choice.place % (places.length + 1)]!;
  if (choice.drop && !Array.isArray(container)) delete container[key as string];
  else (container as Record<string | number, unknown>)[key] = hostile;
  return copy;
}

export const mutationChoice = fc.record({ place: fc.nat(), hostile: fc.nat(), drop: fc.boolean() });
