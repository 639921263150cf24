import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { StringEnum, Uuid4 } from "./schema.ts";

/** Page size ceiling: larger requests are served at this size rather than refused. */
export const MAX_PAGE_SIZE = 100;

/** `page` and `limit` query parameters; zero or negative values are refused (422). */
export const PageQueryFields = {
  page: Type.Integer({ exclusiveMinimum: 0, maximum: 2_147_483_647, default: 1, description: "Page number, defaults to 1." }),
  limit: Type.Integer({ exclusiveMinimum: 0, default: 10, description: "Size of a page, defaults to 10. Maximum is 100." }),
};

/** A filter that may be given once or repeated; query coercion turns a single value into a list. */
export const UuidListFilter = (description: string) => Type.Optional(Type.Array(Uuid4(), { maxItems: 100, description }));

/** The `sorting` parameter: each key ascending, or descending with a leading `-`. */
export const Sorting = <const K extends readonly string[]>(keys: K, title: string) => {
  const values = keys.flatMap((key) => [key, `-${key}`]) as (K[number] | `-${K[number]}`)[];
  return Type.Array(StringEnum(values, { title }), {
    default: ["-created_at"],
    maxItems: 10,
    description: "Sorting criteria; prefix a key with `-` for descending order.",
  });
};

export const Pagination = Type.Object(
  { total_count: Type.Integer(), max_page: Type.Integer() },
  { title: "Pagination" },
);
export type Pagination = Static<typeof Pagination>;

export const ListResource = <T extends TSchema>(item: T, title: string) =>
  Type.Object({ items: Type.Array(item), pagination: Pagination }, { title });

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

export interface SortKey<K extends string> {
  key: K;
  descending: boolean;
}

/** Parses `-name` style keys, keeping the first mention of each key. */
export function sortKeys<K extends string>(sorting: readonly (K | `-${K}`)[]): SortKey<K>[] {
  const seen = new Set<string>();
  const keys: SortKey<K>[] = [];
  for (const raw of sorting) {
    const descending = raw.startsWith("-");
    const key = (descending ? raw.slice(1) : raw) as K;
    if (seen.has(key)) continue;
    seen.add(key);
    keys.push({ key, descending });
  }
  return keys;
}

/**
 * Runs the count and the page query of a list. The caller's page query must order by a unique
 * tiebreaker last so that consecutive pages neither repeat nor skip rows.
 */
export async function paginate<T>(
  request: { page: number; limit: number },
  count: () => Promise<number>,
  fetch: (offset: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const limit = Math.min(request.limit, MAX_PAGE_SIZE);
  const offset = (request.page - 1) * limit;
  const [total, items] = await Promise.all([count(), fetch(offset, limit)]);
  return { items, pagination: { total_count: total, max_page: Math.ceil(total / limit) } };
}

/** `%text%` for ILIKE, with the pattern characters of the text itself escaped. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
