import { Type, type SchemaOptions, type Static, type TArray, type TOptional, type TSchema, type TUnion } from "@sinclair/typebox";
import { StringEnum } from "./primitives.ts";

/** List endpoints: page/limit pagination, ordered sorting criteria and the metadata filter. */

export const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE = 1;
const DEFAULT_LIMIT = 10;

/**
 * `page` and `limit` query parameters; zero or negative values are refused (422). The page number
 * is capped so that the offset stays a valid bigint (422 at `["query","page"]` beyond, never a
 * database error); see docs/decisions.md, "Input hygiene".
 */
export const PaginationQuery = {
  page: Type.Optional(
    Type.Integer({ exclusiveMinimum: 0, maximum: 2_147_483_647, default: DEFAULT_PAGE, description: "Page number, defaults to 1." }),
  ),
  limit: Type.Optional(
    Type.Integer({ exclusiveMinimum: 0, default: DEFAULT_LIMIT, description: "Size of a page, defaults to 10. Maximum is 100." }),
  ),
};

/** A list request's page; the route schema fills in the defaults, which apply here too. */
export interface PageRequest {
  page?: number;
  limit?: number;
}

/** Oversized limits are capped, not refused, as the reference does. */
export function pageWindow({ page = DEFAULT_PAGE, limit = DEFAULT_LIMIT }: PageRequest): { limit: number; offset: number } {
  const effective = Math.min(limit, MAX_PAGE_SIZE);
  return { limit: effective, offset: (page - 1) * effective };
}

export const Pagination = Type.Object({ total_count: Type.Integer(), max_page: Type.Integer() }, { title: "Pagination" });

export const ListResource = <T extends TSchema>(item: T, options: SchemaOptions = {}) =>
  Type.Object({ items: Type.Array(item), pagination: Pagination }, options);

export interface Page<T> {
  items: T[];
  pagination: Static<typeof Pagination>;
}

export function toPage<T>(items: T[], totalCount: number, request: PageRequest): Page<T> {
  const { limit } = pageWindow(request);
  return { items, pagination: { total_count: totalCount, max_page: Math.ceil(totalCount / limit) } };
}

/**
 * Runs the count and the page query of a list. The caller's page query must order by a unique
 * tiebreaker last so that consecutive pages neither repeat nor skip rows.
 */
export async function paginate<T>(
  request: PageRequest,
  count: () => Promise<number>,
  fetch: (offset: number, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const { limit, offset } = pageWindow(request);
  const [totalCount, items] = await Promise.all([count(), fetch(offset, limit)]);
  return toPage(items, totalCount, request);
}

/** `%text%` for ILIKE, with the pattern characters of the text itself escaped. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `sorting` query parameter: each key, or `-key` for descending, applied in the order given.
 * `options` go on the list, `item` on the enum of keys (its `title` names the enum in the SDKs).
 */
export const SortingQuery = <const K extends readonly string[]>(
  keys: K,
  defaults: readonly string[],
  options: SchemaOptions = {},
  item: SchemaOptions = {},
) =>
  Type.Optional(
    Type.Array(StringEnum(keys.flatMap((key) => [key, `-${key}`]) as readonly (K[number] | `-${K[number]}`)[], item), {
      default: [...defaults],
      description: "Sorting criteria, applied in order; a leading `-` sorts descending.",
      ...options,
    }),
  );

/** The sorting options the catalog lists (customers, products, discounts) share. */
export const CATALOG_SORTING: SchemaOptions = {
  maxItems: 10,
  description: "Sorting criteria; prefix a key with `-` for descending order.",
};

export interface SortCriterion<K extends string> {
  key: K;
  direction: "asc" | "desc";
}

/**
 * Parses the criteria; a key repeated later is ignored since the first occurrence already orders by it.
 * The route schema fills in the default criteria, so an absent list only reaches here from code.
 */
export function parseSorting<K extends string>(values: readonly (K | `-${K}`)[] = []): SortCriterion<K>[] {
  const seen = new Set<string>();
  const criteria: SortCriterion<K>[] = [];
  for (const value of values) {
    const descending = value.startsWith("-");
    const key = (descending ? value.slice(1) : value) as K;
    if (seen.has(key)) continue;
    seen.add(key);
    criteria.push({ key, direction: descending ? "desc" : "asc" });
  }
  return criteria;
}

export interface OneOrManyOptions {
  /**
   * Accept the list form only: query coercion still turns a single value into a one-item list,
   * the parsed value is always `T[]`, and a bad value is reported at its index
   * (`["query", name, 0]`) rather than at the parameter.
   */
  listOnly?: boolean;
  /** Most values one request may give; `false` for no limit. 100 unless given. */
  maxItems?: number | false;
}

/** A filter given once or repeated (the reference's `T | T[]`); values of one filter are OR'd. */
export function OneOrMany<T extends TSchema>(
  item: T,
  description: string,
  options: OneOrManyOptions & { listOnly: true },
): TOptional<TArray<T>>;
export function OneOrMany<T extends TSchema>(item: T, description: string, options?: OneOrManyOptions): TOptional<TUnion<[T, TArray<T>]>>;
export function OneOrMany<T extends TSchema>(item: T, description: string, { listOnly = false, maxItems = 100 }: OneOrManyOptions = {}) {
  const bound = maxItems === false ? {} : { maxItems };
  return listOnly
    ? Type.Optional(Type.Array(item, { ...bound, description }))
    : Type.Optional(Type.Union([item, Type.Array(item, bound)], { description }));
}

/** The values of a `OneOrMany` filter as a list; undefined when the filter was not given. */
export const asList = <T>(value: T | T[] | undefined): T[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

/**
 * The `metadata` deepObject filter (`?metadata[key]=value`, parsed by `parseQueryString`): a value
 * or several per key. Values arrive as text and are compared as text.
 */
export const MetadataQuery = () =>
  Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: MAX_PAGE_SIZE })]), {
      title: "MetadataQuery",
      description: "Filter by metadata key-value pairs. It uses the `deepObject` style, e.g. `?metadata[key]=value`.",
    }),
  );
/** The parsed filter is the SQL side's input: db/list-filters.ts. */
export type { MetadataFilter } from "../db/list-filters.ts";

/** A list filter applies when it names at least one value (an empty list filters nothing). */
export const given = <T>(values: readonly T[] | undefined): values is readonly T[] => values !== undefined && values.length > 0;
