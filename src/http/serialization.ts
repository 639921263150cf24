/**
 * Route option for large responses whose schema has many unions (checkouts: prices, discounts,
 * custom fields). fast-json-stringify resolves each union by validating its branches, which costs
 * ~2 ms per checkout; these routes' mappers already build exactly the schema's shape (checked by
 * the compiler and by the reference-validation tests), so plain JSON.stringify is used instead.
 */
export const plainJsonResponse = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};
