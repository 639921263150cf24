import { parse } from "node:querystring";

/** `name[key]`: one level of the OpenAPI deepObject style, the only nesting the interface uses. */
const DEEP_OBJECT_PAIR = /^([^[\]]+)\[([^[\]]+)\]$/;

/**
 * The query-string parser of the app. Repeated names become arrays, as in the framework's own
 * parser, and deepObject pairs (`metadata[tier]=gold`) fold into an object (`{ metadata: { tier:
 * "gold" } }`), so the route schema validates them and the OpenAPI document lists them like any
 * other parameter. Any other bracketed name stays as it is, an unknown parameter. Where a name has
 * deepObject pairs, they are its value, whatever order the pairs came in.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  // Null prototypes: a key such as `__proto__` is data here, never an object's prototype.
  const query = Object.create(null) as Record<string, unknown>;
  const objects = Object.create(null) as Record<string, Record<string, unknown>>;
  for (const [name, value] of Object.entries(parse(text))) {
    const pair = DEEP_OBJECT_PAIR.exec(name);
    if (!pair?.[1] || !pair[2]) query[name] = value;
    else (objects[pair[1]] ??= Object.create(null))[pair[2]] = value;
  }
  return Object.assign(query, objects);
}

interface DocumentedParameter {
  in?: string;
  schema?: { type?: unknown };
  style?: string;
}
type DocumentedPaths = Record<string, Record<string, { parameters?: DocumentedParameter[] } | undefined> | undefined>;

/**
 * The OpenAPI document says how `parseQueryString` reads object-valued query parameters: in the
 * deepObject style, as the reference declares `metadata`.
 */
export function markDeepObjectParameters<T extends { paths?: unknown }>(document: T): T {
  for (const operations of Object.values((document.paths ?? {}) as DocumentedPaths)) {
    for (const operation of Object.values(operations ?? {})) {
      for (const parameter of operation?.parameters ?? []) {
        if (parameter.in === "query" && parameter.schema?.type === "object") parameter.style = "deepObject";
      }
    }
  }
  return document;
}
