import type { Compilable, CompiledQuery } from "kysely";
import type { Executor } from "./database.ts";

/** Organizations a lookup is confined to (null: every one), as the auth layer gives them. */
type Scope = readonly [string, ...string[]] | null;

/**
 * A lookup by one key, within an organization scope, whose statement costs more to build and
 * compile than to run (nested JSON relations, read on every request): compiled once per shape —
 * which key it goes by, how many organizations it is confined to — with placeholder values, which
 * every call swaps for the real ones.
 */
export function compiledLookup<By extends string>(
  name: string,
  build: (db: Executor, by: By, key: string, scope: Scope) => Compilable,
): (db: Executor, by: By, key: string, scope: Scope) => CompiledQuery {
  const keyPlaceholder = `\u0000${name}-key`;
  const scopePlaceholder = `\u0000${name}-scope-`;
  const compiledByShape = new Map<string, CompiledQuery>();
  return (db, by, key, scope) => {
    const shape = `${by}:${scope?.length ?? "all"}`;
    let compiled = compiledByShape.get(shape);
    if (!compiled) {
      const placeholderScope = scope === null ? null : (scope.map((_, i) => `${scopePlaceholder}${i}`) as [string, ...string[]]);
      compiled = build(db, by, keyPlaceholder, placeholderScope).compile();
      compiledByShape.set(shape, compiled);
    }
    const parameters = compiled.parameters.map((p) =>
      p === keyPlaceholder
        ? key
        : typeof p === "string" && p.startsWith(scopePlaceholder)
          ? scope![Number(p.slice(scopePlaceholder.length))]
          : p,
    );
    return { ...compiled, parameters };
  };
}
