import fastJsonStringify from "fast-json-stringify";
import { UUID4_PATTERN } from "./validation.ts";

type Serializer = (data: unknown) => string;

/**
 * Route option for large responses whose schema has many unions (checkouts: prices, discounts,
 * custom fields). fast-json-stringify resolves each union by validating its branches, which costs
 * ~2 ms per checkout; these routes' mappers already build exactly the schema's shape (checked by
 * the compiler and by the reference-validation tests), so plain JSON.stringify is used instead.
 */
export const plainJsonResponse = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};

const serializers = new WeakMap<object, Serializer>();

/**
 * A response schema's serializer, compiled once per process. Compiling is most of the time it
 * takes to build the app, and the same schema object serves several routes (an order in its list
 * and on its own) and every app built in the process (each test file builds its own); what
 * fast-json-stringify generates depends on the schema and the options below only. Response unions
 * are resolved by validating branches, so the serializer's validator knows our id format.
 */
export function compileResponseSerializer({ schema }: { schema: unknown }): Serializer {
  if (typeof schema !== "object" || schema === null) return fastJsonStringify(schema as object);
  const compiled = serializers.get(schema);
  if (compiled) return compiled;
  const serializer: Serializer = fastJsonStringify(schema, { ajv: { formats: { uuid4: UUID4_PATTERN } } });
  serializers.set(schema, serializer);
  return serializer;
}
